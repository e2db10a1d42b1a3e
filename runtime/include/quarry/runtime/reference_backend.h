//===- reference_backend.h - The float semantics as a backend --*- C++ -*-===//
//
// Runs core's evaluate<FloatDomain>: slow, exact to the letter of
// core/SEMANTICS.md, and the oracle every other backend is tested against.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/runtime/backend.h"

namespace quarry::runtime {

std::unique_ptr<Backend> make_reference_backend();

} // namespace quarry::runtime
