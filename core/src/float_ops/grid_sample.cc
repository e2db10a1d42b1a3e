//===- float_ops/grid_sample.cc - grid_sample's shapes and semantics ------===//
#include "quarry/core/ops/grid_sample.h"
#include "quarry/core/ops/scalar_fns.h"

#include <cmath>

namespace quarry::ops {

MaybeTypes GridSample::infer(const Attrs &, InTypes in) {
  const Shape &x = in[0].shape, &g = in[1].shape;
  if (x.rank() != 4)
    fail(name, "x must have rank 4 (n,c,h,w), got ", x.str());
  if (g.rank() != 4 || g[3] != 2 || g[0] != x[0])
    fail(name, "grid must be [", x[0], ",ho,wo,2], got ", g.str());
  return Types{TensorType(Shape{x[0], x[1], g[1], g[2]})};
}

namespace {

/// One axis of the image: its size and how points map onto it.
struct Axis {
  int64_t size;
  bool align;
  GridSamplePad pad;

  /// A grid value in [-1, 1] as a pixel coordinate.
  double unnormalize(double g) const {
    return align ? (g + 1) / 2 * static_cast<double>(size - 1)
                 : ((g + 1) * static_cast<double>(size) - 1) / 2;
  }
  /// A coordinate mirrored back into [low, high].
  static double reflect(double v, double low, double high) {
    if (high <= low)
      return low;
    const double span = high - low;
    double d = std::fabs(v - low);
    const double flips = std::floor(d / span);
    d -= flips * span;
    // fmod, not an integer cast: a far point flips more times than int64_t
    // holds.
    return std::fmod(flips, 2.0) == 0 ? low + d : high - d;
  }
  /// A coordinate moved inside by border or reflection padding.
  double padded(double v) const {
    const double last = static_cast<double>(size - 1);
    if (pad == GridSamplePad::Border)
      return std::min(std::max(v, 0.0), last);
    if (pad == GridSamplePad::Reflection) {
      v = align ? reflect(v, 0, last) : reflect(v, -0.5, last + 0.5);
      return std::min(std::max(v, 0.0), last);
    }
    return v;
  }
};

/// The pixel index at or below coordinate v, bounded so that the cast is
/// defined for a point far outside (or NaN): such taps read 0, or padded,
/// the edge.
int64_t index_at(double v) {
  if (!(v >= -1e9))
    v = -1e9;
  if (!(v <= 1e9))
    v = 1e9;
  return static_cast<int64_t>(v);
}

/// Keys' kernel with ONNX's (and PyTorch's) A = -0.75 at distance t.
double cubic(double t) { return cubic_weight(std::fabs(t), -0.75); }

} // namespace

void GridSample::run(const Attrs &a, FloatInputs in, FloatOutputs out) {
  const FloatTensor &x = *in[0], &grid = *in[1];
  FloatTensor &y = out[0];
  const auto mode = static_cast<GridSampleMode>(a.i(kMode));
  const auto pad = static_cast<GridSamplePad>(a.i(kPad));
  const bool align = a.i(kAlign) != 0;
  const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3],
                ho = y.shape[2], wo = y.shape[3];
  const Axis ax{w, align, pad}, ay{h, align, pad};
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch) {
      const float *plane = &x[(b * c + ch) * h * w];
      // A pixel, 0 outside the image (taps moved in by padding are inside).
      auto at = [&](int64_t iy, int64_t ix) -> double {
        if (mode == GridSampleMode::Bicubic && pad != GridSamplePad::Zeros) {
          ix = index_at(ax.padded(static_cast<double>(ix)));
          iy = index_at(ay.padded(static_cast<double>(iy)));
        }
        if (iy < 0 || iy >= h || ix < 0 || ix >= w)
          return 0;
        return plane[iy * w + ix];
      };
      for (int64_t oy = 0; oy < ho; ++oy)
        for (int64_t ox = 0; ox < wo; ++ox) {
          const float *g = &grid[((b * ho + oy) * wo + ox) * 2];
          double px = ax.unnormalize(g[0]), py = ay.unnormalize(g[1]);
          double v = 0;
          if (mode == GridSampleMode::Bicubic) {
            const double fx = std::floor(px), fy = std::floor(py);
            for (int i = -1; i <= 2; ++i)
              for (int j = -1; j <= 2; ++j)
                v += cubic(py - (fy + i)) * cubic(px - (fx + j)) *
                     at(index_at(fy) + i, index_at(fx) + j);
          } else {
            px = ax.padded(px);
            py = ay.padded(py);
            if (mode == GridSampleMode::Nearest) {
              v = at(index_at(std::nearbyint(py)),
                     index_at(std::nearbyint(px)));
            } else {
              const double fx = std::floor(px), fy = std::floor(py);
              const double tx = px - fx, ty = py - fy;
              const int64_t ix = index_at(fx), iy = index_at(fy);
              v = (1 - ty) * ((1 - tx) * at(iy, ix) + tx * at(iy, ix + 1)) +
                  ty * ((1 - tx) * at(iy + 1, ix) + tx * at(iy + 1, ix + 1));
            }
          }
          y[((b * c + ch) * ho + oy) * wo + ox] = static_cast<float>(v);
        }
    }
}

} // namespace quarry::ops
