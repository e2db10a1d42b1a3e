//===- pointwise_loops.h - Elementwise functions oneDNN lacks ---*- C++ -*-===//
//
// pointwise functions without a oneDNN eltwise algorithm (or without an
// exact one), and binary arithmetic by a scalar or an equal-shaped operand,
// as loops over dense memory: each element alone, so they run in whatever
// layout the operands share, threads splitting the elements; and binary
// arithmetic by one value per channel over nchw or nhwc. erf, the
// one today's networks lean on (GELU), is a rational approximation the
// compiler vectorizes, within a few ulps of the C library's erff; the rest
// call core's scalar semantics.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/scalar_fns.h"

#include <bit>
#include <cstdint>
#include <vector>

namespace quarry::runtime::cpu {

/// erf(x) as x P(x^2) / Q(x^2), clamped at |x| = 4 (where float's erf is
/// 1): within 8 ulps of erff (pointwise_loops_test).
inline float rational_erf(float x) {
  const float c = x < -4.0f ? -4.0f : (x > 4.0f ? 4.0f : x);
  const float z = c * c;
  float p = -2.72614225801306e-10f;
  p = p * z + 2.77068142495902e-08f;
  p = p * z - 2.10102402082508e-06f;
  p = p * z - 5.69250639462346e-05f;
  p = p * z - 7.34990630326855e-04f;
  p = p * z - 2.95459980854025e-03f;
  p = p * z - 1.60960333262415e-02f;
  float q = -1.45660718464996e-05f;
  q = q * z - 2.13374055278905e-04f;
  q = q * z - 1.68282697438203e-03f;
  q = q * z - 7.37332916720468e-03f;
  q = q * z - 1.42647390514189e-02f;
  return c * p / q;
}

/// z[i] = fn(x[i], y[i]), or fn(x[i], y[0]) when `y_scalar`, for i < n (z
/// may be x), on the OpenMP threads when n is large enough to pay for them.
void binary_loop(ops::BroadcastFn fn, const float *x, const float *y,
                 bool y_scalar, float *z, int64_t n);

/// z = fn(x, y) for x of [outer, channels, inner] (nchw: inner is h w;
/// nhwc: outer is n h w, inner 1) and y one value per channel (z may be
/// x), on the OpenMP threads when there are enough elements to pay for
/// them.
void channel_loop(ops::BroadcastFn fn, const float *x, const float *y, float *z,
                  int64_t outer, int64_t channels, int64_t inner);

/// A batchnorm of static statistics as one product and one sum per
/// channel, computed as core's semantics compute them.
struct ChannelAffine {
  std::vector<float> mul, add;
};
ChannelAffine batchnorm_affine(const float *scale, const float *bias,
                               const float *mean, const float *var, double eps,
                               int64_t channels);

/// z = x mul[c] + add[c] (then relu where `relu`) over `rows` dense rows
/// of `channels`, z's rows `z_stride` apart (a part of a concatenation
/// along channels, in nhwc), on the OpenMP threads when there are enough
/// elements to pay for them.
void channel_affine_rows(const float *x, const float *mul, const float *add,
                         bool relu, float *z, int64_t z_stride, int64_t rows,
                         int64_t channels);

/// z = x mul[c] + add[c] for x of [outer, channels, inner] as channel_loop
/// takes it (a batchnorm of static statistics, one product and one sum per
/// channel, as core computes it), then relu where `relu` (z may be x).
void channel_affine_loop(const float *x, const float *mul, const float *add,
                         bool relu, float *z, int64_t outer, int64_t channels,
                         int64_t inner);

/// x sigmoid(x) = x / (1 + e^-x), e^-x as 2^k p(f) (k = round(-x log2 e),
/// f the rest, p of degree 6): within 1e-5 relative of the exact value
/// (pointwise_loops_test), written so that it vectorizes, where expf does
/// not. Beyond -x log2 e = 126, e^-x is infinite, as expf's is past 88.7:
/// x / inf, -0 (NaN at -inf), as the reference's.
inline float fast_silu(float x) {
  const float t = x * -1.44269504088896341f;
  // A NaN compares false and takes the lower bound; x carries it through.
  float c = t > -126.0f ? t : -126.0f;
  c = c < 126.0f ? c : 126.0f;
  const float k = __builtin_rintf(c);
  const float f = c - k;
  float p = 1.535336188319500e-4f;
  p = p * f + 1.339887440266574e-3f;
  p = p * f + 9.618437357674640e-3f;
  p = p * f + 5.550332471162809e-2f;
  p = p * f + 2.402264791363012e-1f;
  p = p * f + 6.931472028550421e-1f;
  p = p * f + 1.0f;
  const float two_k =
      std::bit_cast<float>((static_cast<int32_t>(k) + 127) << 23);
  const float e = t > 126.0f ? __builtin_inff() : p * two_k;
  return x / (1.0f + e);
}

/// y[i] = fn(x[i]) for i < n (x may be y), on the OpenMP threads when n is
/// large enough to pay for them.
void pointwise_loop(ops::PointwiseFn fn, float alpha, float beta,
                    const float *x, float *y, int64_t n);

} // namespace quarry::runtime::cpu
