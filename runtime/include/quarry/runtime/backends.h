//===- backends.h - Backends by name ---------------------------*- C++ -*-===//
#pragma once

#include "quarry/runtime/backend.h"

#include <string_view>

namespace quarry::runtime {

/// "reference", "cpu" or "cuda". Throws quarry::Error for an unknown name,
/// for cuda when this build has no CUDA backend, or when no GPU is present.
std::unique_ptr<Backend> make_backend(std::string_view name);

/// Whether this build includes the cuda backend (CUDA toolkit and cuDNN
/// found at configure time).
bool cuda_backend_built();

} // namespace quarry::runtime
