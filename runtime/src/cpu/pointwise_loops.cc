//===- pointwise_loops.cc - Elementwise functions oneDNN lacks ------------===//
#include "pointwise_loops.h"

#include "clones.h"

#include "quarry/core/float_domain.h"
#include "quarry/core/ops/batchnorm.h"

#include <omp.h>

#include <algorithm>

namespace quarry::runtime::cpu {

namespace {

/// Below this many elements one thread does it all.
constexpr int64_t kParallelElements = 1 << 15;

QUARRY_CPU_CLONES void erf_range(const float *x, float *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = rational_erf(x[i]);
}

QUARRY_CPU_CLONES void silu_range(const float *x, float *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = fast_silu(x[i]);
}

void scalar_range(ops::PointwiseFn fn, float alpha, float beta, const float *x,
                  float *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = ops::pointwise_value(fn, alpha, beta, x[i]);
}

/// y = F(x) element by element with F known where the loop is compiled, so
/// that core's definition of a function that is arithmetic (or one vector
/// instruction: rounding) vectorizes, where a test of `fn` per element
/// keeps it scalar.
template <ops::PointwiseFn F>
[[gnu::always_inline]] inline void
elements(float alpha, float beta, const float *x, float *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = ops::pointwise_value(F, alpha, beta, x[i]);
}

/// `elements<F>` for the first F of `Fs` that is `fn`; false when none is.
template <ops::PointwiseFn... Fs>
[[gnu::always_inline]] inline bool elements_of(ops::PointwiseFn fn, float alpha,
                                               float beta, const float *x,
                                               float *y, int64_t n) {
  return ((fn == Fs && (elements<Fs>(alpha, beta, x, y, n), true)) || ...);
}

/// The functions `elements` vectorizes; false for the others (calls into
/// the C library: exp, sin...).
QUARRY_CPU_CLONES bool arithmetic_range(ops::PointwiseFn fn, float alpha,
                                        float beta, const float *x, float *y,
                                        int64_t n) {
  using F = ops::PointwiseFn;
  return elements_of<F::Round, F::Floor, F::Ceil, F::Sign, F::Neg, F::Abs,
                     F::Reciprocal, F::Clip, F::Softsign, F::Shrink,
                     F::ThresholdedRelu>(fn, alpha, beta, x, y, n);
}

void range(ops::PointwiseFn fn, float alpha, float beta, const float *x,
           float *y, int64_t n) {
  if (fn == ops::PointwiseFn::Erf)
    erf_range(x, y, n);
  else if (fn == ops::PointwiseFn::Silu)
    silu_range(x, y, n);
  else if (!arithmetic_range(fn, alpha, beta, x, y, n))
    scalar_range(fn, alpha, beta, x, y, n);
}

/// z = op(x, y) element by element, y one value (`period` 0) or read at
/// i % period: one per element (period n), one per channel of rows whose
/// channels are innermost (period: the channels; x starts at a row).
template <class Op>
inline void binary_elements(Op op, const float *x, const float *y,
                            int64_t period, float *z, int64_t n) {
  if (period == 0) {
    const float s = y[0];
    for (int64_t i = 0; i < n; ++i)
      z[i] = op(x[i], s);
    return;
  }
  for (int64_t o = 0; o < n; o += period) {
    const int64_t len = std::min(period, n - o);
    for (int64_t i = 0; i < len; ++i)
      z[o + i] = op(x[o + i], y[i]);
  }
}

QUARRY_CPU_CLONES void binary_range(ops::BroadcastFn fn, const float *x,
                                    const float *y, int64_t period, float *z,
                                    int64_t n) {
  using B = ops::BroadcastFn;
  switch (fn) {
  case B::Add:
    return binary_elements([](float a, float b) { return a + b; }, x, y, period,
                           z, n);
  case B::Sub:
    return binary_elements([](float a, float b) { return a - b; }, x, y, period,
                           z, n);
  case B::Mul:
    return binary_elements([](float a, float b) { return a * b; }, x, y, period,
                           z, n);
  case B::Div:
    return binary_elements([](float a, float b) { return a / b; }, x, y, period,
                           z, n);
  case B::Max:
    return binary_elements(ops::float_max, x, y, period, z, n);
  case B::Min:
    return binary_elements(ops::float_min, x, y, period, z, n);
  default:
    return binary_elements(
        [fn](float a, float b) { return ops::broadcast_value(fn, a, b); }, x, y,
        period, z, n);
  }
}

/// z = x mul + add (then relu) over rows of `channels`, mul and add one
/// per channel, z's rows `z_stride` apart.
QUARRY_CPU_CLONES void affine_rows(const float *x, const float *mul,
                                   const float *add, bool relu, float *z,
                                   int64_t z_stride, int64_t rows,
                                   int64_t channels) {
  // Each element alone (z may be x): the rows are short (a part of a
  // concatenation), so the loops are vectorized as written, without the
  // compiler's checks for overlap.
  for (int64_t r = 0; r < rows; ++r) {
    const float *xr = x + r * channels;
    float *zr = z + r * z_stride;
    if (relu) {
#pragma omp simd
      for (int64_t c = 0; c < channels; ++c) {
        const float v = xr[c] * mul[c] + add[c];
        zr[c] = v > 0.0f ? v : 0.0f;
      }
    } else {
#pragma omp simd
      for (int64_t c = 0; c < channels; ++c)
        zr[c] = xr[c] * mul[c] + add[c];
    }
  }
}

/// z = x m + a (then relu) over one plane of n elements.
QUARRY_CPU_CLONES void affine_plane(const float *x, float m, float a, bool relu,
                                    float *z, int64_t n) {
  if (relu) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) {
      const float v = x[i] * m + a;
      z[i] = v > 0.0f ? v : 0.0f;
    }
  } else {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i)
      z[i] = x[i] * m + a;
  }
}

/// f(begin, count) over [0, n) on the OpenMP threads when n is large
/// enough to pay for them, each thread a slice of whole 64-byte lines.
template <class F> void split_elements(int64_t n, F &&f) {
  const int threads =
      n < kParallelElements ? 1 : std::max(1, omp_get_max_threads());
  if (threads == 1)
    return f(0, n);
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const int64_t lines = (n + 15) / 16;
    const int64_t i0 = std::min(n, lines * t / nt * 16);
    const int64_t i1 = std::min(n, lines * (t + 1) / nt * 16);
    f(i0, i1 - i0);
  }
}

/// f(begin, count) over [0, units) units of `unit` elements each, on the
/// OpenMP threads when they hold enough elements to pay for them.
template <class F> void split_units(int64_t units, int64_t unit, F &&f) {
  const int threads = units * unit < kParallelElements
                          ? 1
                          : static_cast<int>(std::min<int64_t>(
                                units, std::max(1, omp_get_max_threads())));
  if (threads == 1)
    return f(0, units);
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const int64_t u0 = units * t / nt, u1 = units * (t + 1) / nt;
    f(u0, u1 - u0);
  }
}

} // namespace

void binary_loop(ops::BroadcastFn fn, const float *x, const float *y,
                 bool y_scalar, float *z, int64_t n) {
  split_elements(n, [&](int64_t i0, int64_t count) {
    binary_range(fn, x + i0, y_scalar ? y : y + i0, y_scalar ? 0 : count,
                 z + i0, count);
  });
}

void channel_loop(ops::BroadcastFn fn, const float *x, const float *y, float *z,
                  int64_t outer, int64_t channels, int64_t inner) {
  if (inner == 1) { // rows of channels, y repeating along each
    split_units(outer, channels, [&](int64_t r0, int64_t rows) {
      binary_range(fn, x + r0 * channels, y, channels, z + r0 * channels,
                   rows * channels);
    });
    return;
  }
  // Planes of `inner` elements, each by its channel's one value.
  split_units(outer * channels, inner, [&](int64_t p0, int64_t planes) {
    for (int64_t p = p0; p < p0 + planes; ++p)
      binary_range(fn, x + p * inner, y + p % channels, 0, z + p * inner,
                   inner);
  });
}

ChannelAffine batchnorm_affine(const float *scale, const float *bias,
                               const float *mean, const float *var, double eps,
                               int64_t channels) {
  const FloatDomain d;
  const float e = d.constant(eps);
  ChannelAffine a;
  for (int64_t ch = 0; ch < channels; ++ch) {
    const auto f = ops::BatchNorm::channel_affine(d, scale[ch], bias[ch],
                                                  mean[ch], var[ch], e);
    a.mul.push_back(f.mul);
    a.add.push_back(f.add);
  }
  return a;
}

void channel_affine_rows(const float *x, const float *mul, const float *add,
                         bool relu, float *z, int64_t z_stride, int64_t rows,
                         int64_t channels) {
  split_units(rows, channels, [&](int64_t r0, int64_t count) {
    affine_rows(x + r0 * channels, mul, add, relu, z + r0 * z_stride, z_stride,
                count, channels);
  });
}

void channel_affine_loop(const float *x, const float *mul, const float *add,
                         bool relu, float *z, int64_t outer, int64_t channels,
                         int64_t inner) {
  if (inner == 1)
    return channel_affine_rows(x, mul, add, relu, z, channels, outer, channels);
  split_units(outer * channels, inner, [&](int64_t p0, int64_t planes) {
    for (int64_t p = p0; p < p0 + planes; ++p)
      affine_plane(x + p * inner, mul[p % channels], add[p % channels], relu,
                   z + p * inner, inner);
  });
}

void pointwise_loop(ops::PointwiseFn fn, float alpha, float beta,
                    const float *x, float *y, int64_t n) {
  split_elements(n, [&](int64_t i0, int64_t count) {
    range(fn, alpha, beta, x + i0, y + i0, count);
  });
}

} // namespace quarry::runtime::cpu
