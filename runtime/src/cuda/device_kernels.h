//===- device_kernels.h - quarry's own CUDA kernels, called from C++ -*- C++
//-*-===//
//
// The operators cuDNN and cuBLAS have no call for: pointwise functions,
// broadcasting arithmetic and where, strided gathers (slice), padding,
// reductions, pooling with explicit padding and transposed convolution. Each
// launch_ function enqueues one kernel on `stream` and checks the launch; what
// they compute per element, window or reduced value is core's own
// (ops/scalar_fns.h), so results match the reference within float
// rounding. Shapes are described
// by small structs passed to the kernel by value (ranks up to kMaxRank).
//
// These kernels favour being right on every shape over speed: one thread
// per output element (a warp per output for reductions). The operators
// they serve are rare in the benchmark networks and small in imported ones.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/scalar_fns.h"

#include <cuda_runtime.h>

#include <cstdint>

namespace quarry::runtime::cuda {

inline constexpr int kMaxRank = 8;

/// A row-major walk over an output of extents `dims`, reading up to three
/// operands: operand k's element for output index (i0..ir-1) is at
/// offset[k] + sum_d i_d * stride[k][d].
struct Walk {
  int rank = 0;
  int64_t dims[kMaxRank] = {};
  int64_t stride[3][kMaxRank] = {};
  int64_t offset[3] = {};
  int64_t numel() const {
    int64_t n = 1;
    for (int d = 0; d < rank; ++d)
      n *= dims[d];
    return n;
  }
};

/// y[i] = pointwise[fn alpha beta](x[i]) for i < n.
void launch_pointwise(cudaStream_t stream, ops::PointwiseFn fn, float alpha,
                      float beta, const float *x, float *y, int64_t n);

/// y = broadcast[fn](a, b) over `w` (a through stride[0], b stride[1]).
void launch_broadcast(cudaStream_t stream, ops::BroadcastFn fn, const float *a,
                      const float *b, float *y, const Walk &w);

/// y = where(c, a, b) over `w` (c through stride[0], a stride[1], b
/// stride[2]): a where c is not 0, else b (ops/where.h).
void launch_where(cudaStream_t stream, const float *c, const float *a,
                  const float *b, float *y, const Walk &w);

/// y[i] = x[offset[0] + ...] over `w`: a strided gather (slice).
void launch_gather(cudaStream_t stream, const float *x, float *y,
                   const Walk &w);

/// pad on extents `in` to `out`, `before[d]` elements added before axis d
/// (ops/pad.h).
struct PadGeometry {
  int rank = 0;
  int64_t in[kMaxRank] = {}, out[kMaxRank] = {}, before[kMaxRank] = {};
  ops::PadMode mode = ops::PadMode::Constant;
  float value = 0.0f;
};

void launch_pad(cudaStream_t stream, const float *x, float *y,
                const PadGeometry &g);

/// A reduction: output element o reads the input at kept.offset walked
/// by o (kept.stride[0] in input elements), then every element of the
/// reduced walk from there (reduced.stride[0]).
struct ReduceGeometry {
  Walk kept, reduced;
};

/// reduce[fn] (ops/reduce.h), or reduce_mean when `mean` (fn is Sum).
void launch_reduce(cudaStream_t stream, ops::ReduceFn fn, bool mean,
                   const float *x, float *y, const ReduceGeometry &g);

/// pool2d_explicit on [n, c, h, w] (ops/pool2d_explicit.h).
struct PoolGeometry {
  int64_t planes = 0, h = 0, w = 0, oh = 0, ow = 0;
  int64_t kh = 1, kw = 1, dh = 1, dw = 1, sh = 1, sw = 1;
  int64_t top = 0, left = 0, bottom = 0, right = 0;
  bool max = false, count_pad = false;
};

void launch_pool2d(cudaStream_t stream, const float *x, float *y,
                   const PoolGeometry &g);

/// conv_transpose of x [n, c, h, w] with w [c, co/groups, kh, kw] into
/// y [n, co, oh, ow] (ops/conv_transpose.h).
struct ConvTransposeGeometry {
  int64_t n = 0, c = 0, h = 0, w = 0, co = 0, oh = 0, ow = 0;
  int64_t groups = 1, kh = 1, kw = 1, sh = 1, sw = 1, top = 0, left = 0;
};

void launch_conv_transpose(cudaStream_t stream, const float *x, const float *w,
                           float *y, const ConvTransposeGeometry &g);

/// layer_norm of `rows` contiguous rows of `row` elements each
/// (ops/layer_norm.h); `bias` may be null. A warp per row, its sums in
/// double as the reference's.
void launch_layer_norm(cudaStream_t stream, const float *x, const float *scale,
                       const float *bias, float *y, int64_t rows, int64_t row,
                       double eps);

} // namespace quarry::runtime::cuda
