//===- field61_device.h - Field arithmetic on a CUDA device ---*- C++ -*-===//
//
// Host entry points of the CUDA kernels. They use the same field61.h
// functions as the host, so device and host results are bit-identical.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace quarry::cuda {

/// Number of usable CUDA devices (0 when the driver or device is missing).
int device_count();

/// out[i] = a[i] * b[i] + c[i] (mod 2^61-1), computed on device 0. Throws
/// std::runtime_error naming the CUDA call that failed.
std::vector<uint64_t> field61_fma(const std::vector<uint64_t> &a,
                                  const std::vector<uint64_t> &b,
                                  const std::vector<uint64_t> &c);

} // namespace quarry::cuda
