//===- float_ops/pool2d_explicit.cc - explicit-padding pooling ------------===//
#include "quarry/core/ops/pool2d_explicit.h"
#include "quarry/core/ops/scalar_fns.h"

#include <algorithm>
#include <limits>

namespace quarry::ops {

int64_t pool_extent(int64_t in, int64_t k, int64_t s, int64_t d, int64_t before,
                    int64_t after, bool ceil) {
  if (k < 1 || s < 1 || d < 1 || before < 0 || after < 0)
    fail(Pool2DExplicit::name, "kernel, stride and dilation must be positive "
                               "and pads non-negative");
  int64_t span = 0, padded = 0;
  if (__builtin_mul_overflow(k - 1, d, &span) ||
      __builtin_add_overflow(span, 1, &span) ||
      __builtin_add_overflow(in, before, &padded) ||
      __builtin_add_overflow(padded, after, &padded))
    fail(Pool2DExplicit::name, "window or padding past 64 bits");
  const int64_t room = padded - span;
  if (room < 0)
    fail(Pool2DExplicit::name, "padded input ", padded,
         " smaller than the window's span ", span);
  int64_t out = room / s + (ceil && room % s != 0 ? 1 : 0) + 1;
  if (ceil && static_cast<__int128>(out - 1) * s >= in + before)
    --out; // the last window would hold padding only
  return out;
}

MaybeTypes Pool2DExplicit::infer(const Attrs &a, InTypes in) {
  const Shape &x = in[0].shape;
  if (x.rank() != 4)
    fail(name, "input must have rank 4 (n,c,h,w), got ", x.str());
  const auto &k = a.list(kKernel), &s = a.list(kStride), &p = a.list(kPads),
             &d = a.list(kDilation);
  if (a.i(kFn) != 1 && (d[0] != 1 || d[1] != 1))
    fail(name, "dilation applies to max pooling only");
  const bool ceil = a.i(kCeil) != 0;
  return Types{TensorType(
      Shape{x[0], x[1], pool_extent(x[2], k[0], s[0], d[0], p[0], p[2], ceil),
            pool_extent(x[3], k[1], s[1], d[1], p[1], p[3], ceil)})};
}

void Pool2DExplicit::run(const Attrs &a, FloatInputs in, FloatOutputs out) {
  const FloatTensor &x = *in[0];
  FloatTensor &y = out[0];
  const bool is_max = a.i(kFn) == 1, count_pad = a.i(kCountPad) != 0;
  const auto &k = a.list(kKernel), &s = a.list(kStride), &p = a.list(kPads),
             &d = a.list(kDilation);
  const int64_t planes = x.shape[0] * x.shape[1], h = x.shape[2],
                w = x.shape[3], oh = y.shape[2], ow = y.shape[3];
  int64_t o = 0;
  for (int64_t pl = 0; pl < planes; ++pl)
    for (int64_t oy = 0; oy < oh; ++oy)
      for (int64_t ox = 0; ox < ow; ++ox) {
        float acc = is_max ? -std::numeric_limits<float>::infinity() : 0.0f;
        int64_t inside = 0;
        for (int64_t ky = 0; ky < k[0]; ++ky)
          for (int64_t kx = 0; kx < k[1]; ++kx) {
            const int64_t iy = oy * s[0] - p[0] + ky * d[0],
                          ix = ox * s[1] - p[1] + kx * d[1];
            if (iy < 0 || iy >= h || ix < 0 || ix >= w)
              continue;
            const float v = x[(pl * h + iy) * w + ix];
            acc = is_max ? std::max(acc, v) : acc + v;
            ++inside;
          }
        if (!is_max) {
          const int64_t n = pool_avg_divisor(count_pad, inside,
                                             oy * s[0] - p[0], ox * s[1] - p[1],
                                             k[0], k[1], h + p[2], w + p[3]);
          acc = n > 0 ? acc / static_cast<float>(n) : 0.0f;
        }
        y[o++] = acc;
      }
}

} // namespace quarry::ops
