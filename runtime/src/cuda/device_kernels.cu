//===- device_kernels.cu - quarry's own CUDA kernels ----------------------===//
#include "device_kernels.h"

#include "quarry/core/error.h"

#include <string>

namespace quarry::runtime::cuda {

namespace {

constexpr unsigned kThreads = 256;

void check_launch(const char *kernel) {
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess)
    throw Error(std::string("backend cuda: launching ") + kernel + ": " +
                cudaGetErrorString(e));
}

unsigned blocks_for(int64_t n) {
  return static_cast<unsigned>((n + kThreads - 1) / kThreads);
}

/// The offset operand k reads for output index i of walk w.
__device__ int64_t walk_offset(const Walk &w, int k, int64_t i) {
  int64_t off = w.offset[k];
  for (int d = w.rank - 1; d >= 0; --d) {
    const int64_t e = w.dims[d];
    off += (i % e) * w.stride[k][d];
    i /= e;
  }
  return off;
}

__global__ void pointwise_kernel(ops::PointwiseFn fn, float alpha, float beta,
                                 const float *x, float *y, int64_t n) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < n)
    y[i] = ops::pointwise_value(fn, alpha, beta, x[i]);
}

__global__ void broadcast_kernel(ops::BroadcastFn fn, const float *a,
                                 const float *b, float *y, Walk w, int64_t n) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < n)
    y[i] = ops::broadcast_value(fn, a[walk_offset(w, 0, i)],
                                b[walk_offset(w, 1, i)]);
}

__global__ void where_kernel(const float *c, const float *a, const float *b,
                             float *y, Walk w, int64_t n) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < n)
    y[i] = c[walk_offset(w, 0, i)] != 0.0f ? a[walk_offset(w, 1, i)]
                                           : b[walk_offset(w, 2, i)];
}

__global__ void gather_kernel(const float *x, float *y, Walk w, int64_t n) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < n)
    y[i] = x[walk_offset(w, 0, i)];
}

__global__ void pad_kernel(const float *x, float *y, PadGeometry g, int64_t n) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i >= n)
    return;
  int64_t rest = i, from = 0, stride = 1;
  for (int d = g.rank - 1; d >= 0; --d) {
    const int64_t j =
        ops::pad_source(g.mode, rest % g.out[d] - g.before[d], g.in[d]);
    rest /= g.out[d];
    if (j < 0) {
      y[i] = g.value;
      return;
    }
    from += j * stride;
    stride *= g.in[d];
  }
  y[i] = x[from];
}

/// One warp per output element; lanes stride through the reduced walk and
/// combine by shuffles. Accumulates in double, as the reference does.
__global__ void reduce_kernel(ops::ReduceFn fn, bool mean, const float *x,
                              float *y, ReduceGeometry g, int64_t outputs,
                              int64_t count) {
  const int64_t o = (blockIdx.x * int64_t(blockDim.x) + threadIdx.x) / warpSize;
  const int lane = threadIdx.x % warpSize;
  if (o >= outputs) // the whole warp: o is the same in every lane
    return;
  const float *base = x + walk_offset(g.kept, 0, o);
  auto at = [&](int64_t j) {
    return static_cast<double>(base[walk_offset(g.reduced, 0, j)]);
  };
  auto warp_combine = [&](ops::ReduceFn f, double v) {
    for (int s = warpSize / 2; s > 0; s /= 2)
      v = ops::reduce_combine(f, v, __shfl_xor_sync(0xffffffffu, v, s));
    return v;
  };
  double top = -HUGE_VAL; // the largest element, for log_sum_exp
  if (fn == ops::ReduceFn::LogSumExp) {
    for (int64_t j = lane; j < count; j += warpSize)
      top = ops::reduce_step(ops::ReduceFn::Max, top, at(j), 0.0);
    top = warp_combine(ops::ReduceFn::Max, top);
  }
  double acc = ops::reduce_start(fn);
  for (int64_t j = lane; j < count; j += warpSize)
    acc = ops::reduce_step(fn, acc, at(j), top);
  acc = warp_combine(fn, acc);
  if (lane != 0)
    return;
  acc = ops::reduce_finish(fn, acc, top);
  if (mean)
    acc /= static_cast<double>(count);
  y[o] = static_cast<float>(acc);
}

__global__ void layer_norm_kernel(const float *x, const float *scale,
                                  const float *bias, float *y, int64_t rows,
                                  int64_t row, double eps) {
  const int64_t r = (blockIdx.x * int64_t(blockDim.x) + threadIdx.x) / warpSize;
  const int lane = threadIdx.x % warpSize;
  if (r >= rows) // the whole warp: r is the same in every lane
    return;
  const float *xr = x + r * row;
  float *yr = y + r * row;
  auto warp_sum = [](double v) {
    for (int s = warpSize / 2; s > 0; s /= 2)
      v += __shfl_xor_sync(0xffffffffu, v, s);
    return v;
  };
  double sum = 0;
  for (int64_t i = lane; i < row; i += warpSize)
    sum += xr[i];
  const double mean = warp_sum(sum) / static_cast<double>(row);
  double squares = 0;
  for (int64_t i = lane; i < row; i += warpSize)
    squares += (xr[i] - mean) * (xr[i] - mean);
  const double inv =
      1.0 / sqrt(warp_sum(squares) / static_cast<double>(row) + eps);
  for (int64_t i = lane; i < row; i += warpSize)
    yr[i] = static_cast<float>((xr[i] - mean) * inv * scale[i] +
                               (bias ? bias[i] : 0.0f));
}

__global__ void pool2d_kernel(const float *x, float *y, PoolGeometry g,
                              int64_t n) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i >= n)
    return;
  const int64_t ox = i % g.ow, oy = i / g.ow % g.oh, plane = i / (g.ow * g.oh);
  const int64_t y0 = oy * g.sh - g.top, x0 = ox * g.sw - g.left;
  const float *p = x + plane * g.h * g.w;
  float acc = g.max ? -INFINITY : 0.0f;
  int64_t inside = 0;
  for (int64_t ky = 0; ky < g.kh; ++ky)
    for (int64_t kx = 0; kx < g.kw; ++kx) {
      const int64_t iy = y0 + ky * g.dh, ix = x0 + kx * g.dw;
      if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w)
        continue;
      const float v = p[iy * g.w + ix];
      acc = g.max ? ops::float_max(acc, v) : acc + v;
      ++inside;
    }
  if (!g.max) {
    const int64_t count = ops::pool_avg_divisor(
        g.count_pad, inside, y0, x0, g.kh, g.kw, g.h + g.bottom, g.w + g.right);
    acc = count > 0 ? acc / static_cast<float>(count) : 0.0f;
  }
  y[i] = acc;
}

/// Each output element gathers the input pixels whose scattered kernel
/// covers it.
__global__ void conv_transpose_kernel(const float *x, const float *w, float *y,
                                      ConvTransposeGeometry g, int64_t n) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i >= n)
    return;
  const int64_t ox = i % g.ow, oy = i / g.ow % g.oh,
                o = i / (g.ow * g.oh) % g.co, b = i / (g.ow * g.oh * g.co);
  const int64_t cog = g.co / g.groups, cig = g.c / g.groups;
  const int64_t grp = o / cog, oc = o % cog;
  float acc = 0.0f;
  for (int64_t ky = 0; ky < g.kh; ++ky) {
    const int64_t ty = oy + g.top - ky; // = iy * sh
    if (ty < 0 || ty % g.sh != 0 || ty / g.sh >= g.h)
      continue;
    const int64_t iy = ty / g.sh;
    for (int64_t kx = 0; kx < g.kw; ++kx) {
      const int64_t tx = ox + g.left - kx;
      if (tx < 0 || tx % g.sw != 0 || tx / g.sw >= g.w)
        continue;
      const int64_t ix = tx / g.sw;
      for (int64_t ci = grp * cig; ci < (grp + 1) * cig; ++ci)
        acc += x[((b * g.c + ci) * g.h + iy) * g.w + ix] *
               w[((ci * cog + oc) * g.kh + ky) * g.kw + kx];
    }
  }
  y[i] = acc;
}

} // namespace

void launch_pointwise(cudaStream_t stream, ops::PointwiseFn fn, float alpha,
                      float beta, const float *x, float *y, int64_t n) {
  if (n == 0)
    return;
  pointwise_kernel<<<blocks_for(n), kThreads, 0, stream>>>(fn, alpha, beta, x,
                                                           y, n);
  check_launch("pointwise");
}

void launch_broadcast(cudaStream_t stream, ops::BroadcastFn fn, const float *a,
                      const float *b, float *y, const Walk &w) {
  const int64_t n = w.numel();
  if (n == 0)
    return;
  broadcast_kernel<<<blocks_for(n), kThreads, 0, stream>>>(fn, a, b, y, w, n);
  check_launch("broadcast");
}

void launch_where(cudaStream_t stream, const float *c, const float *a,
                  const float *b, float *y, const Walk &w) {
  const int64_t n = w.numel();
  if (n == 0)
    return;
  where_kernel<<<blocks_for(n), kThreads, 0, stream>>>(c, a, b, y, w, n);
  check_launch("where");
}

void launch_gather(cudaStream_t stream, const float *x, float *y,
                   const Walk &w) {
  const int64_t n = w.numel();
  if (n == 0)
    return;
  gather_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, y, w, n);
  check_launch("gather");
}

void launch_pad(cudaStream_t stream, const float *x, float *y,
                const PadGeometry &g) {
  int64_t n = 1;
  for (int d = 0; d < g.rank; ++d)
    n *= g.out[d];
  if (n == 0)
    return;
  pad_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, y, g, n);
  check_launch("pad");
}

void launch_reduce(cudaStream_t stream, ops::ReduceFn fn, bool mean,
                   const float *x, float *y, const ReduceGeometry &g) {
  const int64_t outputs = g.kept.numel(), count = g.reduced.numel();
  if (outputs == 0)
    return;
  const int64_t threads = outputs * 32;
  reduce_kernel<<<blocks_for(threads), kThreads, 0, stream>>>(fn, mean, x, y, g,
                                                              outputs, count);
  check_launch("reduce");
}

void launch_layer_norm(cudaStream_t stream, const float *x, const float *scale,
                       const float *bias, float *y, int64_t rows, int64_t row,
                       double eps) {
  if (rows == 0 || row == 0)
    return;
  layer_norm_kernel<<<blocks_for(rows * 32), kThreads, 0, stream>>>(
      x, scale, bias, y, rows, row, eps);
  check_launch("layer_norm");
}

void launch_pool2d(cudaStream_t stream, const float *x, float *y,
                   const PoolGeometry &g) {
  const int64_t n = g.planes * g.oh * g.ow;
  if (n == 0)
    return;
  pool2d_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, y, g, n);
  check_launch("pool2d_explicit");
}

void launch_conv_transpose(cudaStream_t stream, const float *x, const float *w,
                           float *y, const ConvTransposeGeometry &g) {
  const int64_t n = g.n * g.co * g.oh * g.ow;
  if (n == 0)
    return;
  conv_transpose_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, w, y, g, n);
  check_launch("conv_transpose");
}

} // namespace quarry::runtime::cuda
