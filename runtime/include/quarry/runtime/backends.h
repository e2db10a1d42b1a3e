//===- backends.h - Backends by name ---------------------------*- C++ -*-===//
#pragma once

#include "quarry/runtime/backend.h"

#include <string>
#include <string_view>

namespace quarry::runtime {

/// Settings a backend may honour.
struct BackendOptions {
  /// Worker threads (cpu): 0 means OMP_NUM_THREADS when set, else every
  /// hardware thread.
  int threads = 0;
  /// Run elementwise chains inside their producer's kernel (cpu, cuda).
  bool fuse = true;
  /// Activation layout of convolutions (cpu): "" lets the backend choose
  /// (oneDNN's preference, then the layout values arrive in); "nchw",
  /// "nhwc", "nChw8c" or "nChw16c" makes every convolution read and write
  /// that one, for tests and layout comparisons.
  std::string layout;
  /// Record a run into one CUDA graph and replay it (cuda).
  bool cuda_graphs = true;
  /// Streams independent steps run on at once (cuda; streams.h): 1 runs
  /// every step in order on one, 0 as many as the widest wave of
  /// independent steps needs (up to 8). On cpu, other than 1 checks that
  /// plan on one host thread per stream (stream_check.h), for tests.
  int streams = 1;
  /// Arithmetic: "fp32" (the default), "tf32" (cuda: matrix units on
  /// float32 operands), "bf16" (cpu with avx512_bf16: convolutions and
  /// matrix products with static weights read bfloat16 operands and
  /// accumulate float32). A backend refuses one it cannot honour.
  std::string precision = "fp32";
  /// cpu: read denormal floats (below 2^-126) as zero and write zero for
  /// denormal results while a graph runs (cpu/denormals.h), since x86
  /// cores take tens of times longer over them; false keeps them as IEEE
  /// arithmetic computes them.
  bool denormals_as_zero = true;
};

/// The error `--check` accepts by default at `precision` (largest
/// |difference| over largest |reference|): float32 arithmetic in another
/// order, or operands rounded to tf32's or bfloat16's mantissa.
double precision_tolerance(std::string_view precision);

/// "reference", "cpu" or "cuda". Throws quarry::Error for an unknown name,
/// for cuda when this build has no CUDA backend, or when no GPU is present.
std::unique_ptr<Backend> make_backend(std::string_view name,
                                      const BackendOptions &opts = {});

/// Backend `name` as far as it decides from shapes alone (which nodes run
/// inside another's kernel), for graphs priced from costs measured on
/// `device`, another machine's (CostTable): it needs no device, its
/// device_name() is `device`, and its prepare() throws, since nothing runs
/// here.
std::unique_ptr<Backend> make_pricing_backend(std::string_view name,
                                              std::string device,
                                              const BackendOptions &opts = {});

/// Whether this build includes the cuda backend (CUDA toolkit and cuDNN
/// found at configure time).
bool cuda_backend_built();

} // namespace quarry::runtime
