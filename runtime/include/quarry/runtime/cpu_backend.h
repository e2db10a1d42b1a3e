//===- cpu_backend.h - Graphs on the CPU through oneDNN --------*- C++ -*-===//
//
// oneDNN 2.x primitives for convolution (groups, fused activation), matmul,
// pooling, elementwise functions and binaries, batchnorm, concat and
// transpose; direct loops for split, reshape and scalar_mul. Memory is
// planned once per graph (plan.h), static weights are laid out once, and
// oneDNN supplies the threads.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/runtime/backend.h"

namespace quarry::runtime {

std::unique_ptr<Backend> make_cpu_backend();

/// Whether the cpu backend can run a (dynamic) node of this kind.
bool cpu_supports(OpKind kind);

} // namespace quarry::runtime
