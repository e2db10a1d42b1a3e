//===- ops/pool2d.h - Average and max pooling, NCHW ----------*- C++ -*-===//
//
// pool2d_avg multiplies every window's sum by 1/(kh*kw), padded zeros included
// (so conv2d with const_pool equals it, as TASO's axiom states). pool2d_max
// takes the domain's max over the window's in-bounds elements only.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/common.h"

namespace quarry::ops {

enum class PoolFn { Avg, Max };

template <PoolFn Fn> struct Pool2D {
  static constexpr std::string_view name =
      Fn == PoolFn::Avg ? "pool2d_avg" : "pool2d_max";
  static constexpr int min_inputs = 1, max_inputs = 1;
  enum : size_t { kKernel, kStride, kPad };
  static AttrSchema attrs() {
    static const AttrSpec specs[] = {kKernelSpec, kStrideSpec, kPadSpec};
    return specs;
  }
  static constexpr OpTraits traits{};
  static int num_outputs(const Attrs &) { return 1; }

  static std::pair<Window, Window> windows(const Attrs &a, const Shape &x) {
    if (x.rank() != 4)
      fail(name, "input must have rank 4 (n,c,h,w), got ", x.str());
    const auto &k = a.list(kKernel);
    const auto &s = a.list(kStride);
    const auto pad = static_cast<Padding>(a.i(kPad));
    return {window(name, "height", x[2], k[0], s[0], pad),
            window(name, "width", x[3], k[1], s[1], pad)};
  }

  /// A 1x1 window with stride 1: every element is its own window.
  static bool is_identity(const Attrs &a) {
    const auto &k = a.list(kKernel);
    const auto &s = a.list(kStride);
    return k[0] == 1 && k[1] == 1 && s[0] == 1 && s[1] == 1;
  }

  static MaybeTypes infer(const Attrs &a, InTypes in) {
    const auto [wy, wx] = windows(a, in[0].shape);
    const Shape &x = in[0].shape;
    TensorType out(Shape{x[0], x[1], wy.out, wx.out});
    out.set_split(0, in[0].split(0));
    out.set_split(1, in[0].split(1));
    return Types{out};
  }

  template <Domain D>
  static void evaluate(const D &d, const Attrs &a, OpInputs<D> in,
                       OpOutputs<D> out) {
    const auto &x = *in[0];
    const auto [wy, wx] = windows(a, x.shape);
    const auto &k = a.list(kKernel);
    const auto &s = a.list(kStride);
    const int64_t planes = x.shape[0] * x.shape[1], h = x.shape[2],
                  w = x.shape[3];
    // One reciprocal for all windows: exact domains pay for an inverse once.
    const auto scale = d.div_int(d.one(), k[0] * k[1]);
    int64_t idx = 0;
    for (int64_t p = 0; p < planes; ++p)
      for (int64_t oy = 0; oy < wy.out; ++oy)
        for (int64_t ox = 0; ox < wx.out; ++ox) {
          std::optional<typename D::Scalar> acc;
          for (int64_t ky = 0; ky < k[0]; ++ky) {
            const int64_t iy = oy * s[0] - wy.pad_before + ky;
            if (iy < 0 || iy >= h)
              continue;
            for (int64_t kx = 0; kx < k[1]; ++kx) {
              const int64_t ix = ox * s[1] - wx.pad_before + kx;
              if (ix < 0 || ix >= w)
                continue;
              const auto &v = x[(p * h + iy) * w + ix];
              if (!acc)
                acc = v;
              else
                acc = Fn == PoolFn::Avg ? d.add(*acc, v) : d.max(*acc, v);
            }
          }
          // A same-padded window always overlaps the input, so acc is set.
          out[0][idx++] = Fn == PoolFn::Avg ? d.mul(*acc, scale) : *acc;
        }
  }
};

using Pool2DAvg = Pool2D<PoolFn::Avg>;
using Pool2DMax = Pool2D<PoolFn::Max>;

} // namespace quarry::ops
