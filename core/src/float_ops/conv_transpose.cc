//===- float_ops/conv_transpose.cc - transposed convolution ---------------===//
#include "quarry/core/ops/conv_transpose.h"

namespace quarry::ops {

MaybeTypes ConvTranspose::infer(const Attrs &a, InTypes in) {
  const Shape &x = in[0].shape, &w = in[1].shape;
  if (x.rank() != 4 || w.rank() != 4)
    fail(name, "input and weight must have rank 4, got ", x.str(), " and ",
         w.str());
  const int64_t groups = a.i(kGroups);
  if (groups < 1 || x[1] % groups != 0 || w[0] != x[1])
    fail(name, "weight ", w.str(), " does not fit input ", x.str(), " with ",
         groups, " groups");
  const auto &s = a.list(kStride), &p = a.list(kPads), &op = a.list(kOutPad);
  Shape out{x[0], w[1] * groups, (x[2] - 1) * s[0] + w[2] - p[0] - p[2] + op[0],
            (x[3] - 1) * s[1] + w[3] - p[1] - p[3] + op[1]};
  if (s[0] < 1 || s[1] < 1 || out[2] < 1 || out[3] < 1)
    fail(name, "no output for input ", x.str(), " and weight ", w.str());
  return Types{TensorType(out)};
}

void ConvTranspose::run(const Attrs &a, FloatInputs in, FloatOutputs out) {
  const FloatTensor &x = *in[0], &w = *in[1];
  FloatTensor &y = out[0];
  const auto &s = a.list(kStride), &p = a.list(kPads);
  const int64_t groups = a.i(kGroups);
  const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], wd = x.shape[3];
  const int64_t cog = w.shape[1], kh = w.shape[2], kw = w.shape[3];
  const int64_t co = y.shape[1], oh = y.shape[2], ow = y.shape[3];
  const int64_t cig = c / groups;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ci = 0; ci < c; ++ci) {
      const int64_t g = ci / cig;
      for (int64_t iy = 0; iy < h; ++iy)
        for (int64_t ix = 0; ix < wd; ++ix) {
          const float v = x[((b * c + ci) * h + iy) * wd + ix];
          for (int64_t oc = 0; oc < cog; ++oc)
            for (int64_t ky = 0; ky < kh; ++ky) {
              const int64_t oy = iy * s[0] - p[0] + ky;
              if (oy < 0 || oy >= oh)
                continue;
              for (int64_t kx = 0; kx < kw; ++kx) {
                const int64_t ox = ix * s[1] - p[1] + kx;
                if (ox < 0 || ox >= ow)
                  continue;
                y[((b * co + g * cog + oc) * oh + oy) * ow + ox] +=
                    v * w[((ci * cog + oc) * kh + ky) * kw + kx];
              }
            }
        }
    }
}

} // namespace quarry::ops
