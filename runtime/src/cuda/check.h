//===- check.h - Every CUDA, cuDNN and cuBLAS status checked ---*- C++ -*-===//
//
// QUARRY_CUDA_CHECK(call) throws quarry::Error "backend cuda: <call> failed:
// <reason>" for any status but success, whichever library the call is from.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/error.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <string>

namespace quarry::runtime::cuda {

[[noreturn]] inline void fail_call(const char *call, const std::string &why) {
  throw Error(std::string("backend cuda: ") + call + " failed: " + why);
}

inline void check(cudaError_t s, const char *call) {
  if (s != cudaSuccess)
    fail_call(call, cudaGetErrorString(s));
}
inline void check(cudnnStatus_t s, const char *call) {
  if (s != CUDNN_STATUS_SUCCESS)
    fail_call(call, cudnnGetErrorString(s));
}
inline void check(cublasStatus_t s, const char *call) {
  if (s != CUBLAS_STATUS_SUCCESS)
    fail_call(call, cublasGetStatusString(s));
}

} // namespace quarry::runtime::cuda

#define QUARRY_CUDA_CHECK(call) ::quarry::runtime::cuda::check((call), #call)
