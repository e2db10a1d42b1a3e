//===- ops/conv2d.h - 2-D convolution, NCHW -----------------*- C++ -*-===//
//
// conv2d(x, w): x is [n, c, h, w], the weight is [co, c / groups, kh, kw].
// The group count is implied by the shapes: groups = c / weight channels,
// and co must be a multiple of it (as in TASO and ONNX). Output channel o
// reads input channels of group o / (co / groups). Padding and output size
// follow ops::window() over the kernel's extent; padded elements are zero.
// `act` is fused. `d` (absent: 1,1) spreads the taps d apart, as ONNX's
// dilations do: the window spans (k - 1) * d + 1 elements and reads k of
// them. It is absent rather than 1,1 on an undilated convolution, so rules
// and packs written before it existed read and hash as they did.
// `alg` names how a backend computes it (absent: the backend's default);
// the value is the same whichever it names, up to the rounding of sums
// taken in another order, so every evaluation here ignores it. Rules leave
// it open, and the optimizer sets it where a backend offers a choice
// (optimizer/implementations.h). `layout` names the activation layout a
// backend runs it in (absent: the backend's own choice), as a layout the
// optimizer measured faster for the whole graph; evaluation ignores it
// too, and rules leave it open.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/common.h"

namespace quarry::ops {

/// The elements a window of `k` taps `d` apart spans.
inline int64_t dilated_extent(int64_t k, int64_t d) { return (k - 1) * d + 1; }

/// How a convolution is computed: directly, tap by tap; by Winograd's
/// minimal filtering (fewer products, sums in another order); or, for a
/// 1x1 window at stride 1, as one matrix product of the channels-last
/// pixels by the weights (the same products, blocked another way).
enum class ConvAlgorithm : int64_t { Direct = 0, Winograd = 1, Matmul = 2 };
inline constexpr std::string_view kConvAlgorithmNames[] = {"direct", "winograd",
                                                           "matmul"};

/// The activation layout a convolution reads and writes: channels last, or
/// channels in blocks of 8 or 16 (oneDNN's nChw8c and nChw16c).
enum class ConvLayout : int64_t { Nhwc = 0, Blocked8 = 1, Blocked16 = 2 };
inline constexpr std::string_view kConvLayoutNames[] = {"nhwc", "nChw8c",
                                                        "nChw16c"};
inline std::string conv_layout_name(ConvLayout l) {
  return std::string(kConvLayoutNames[static_cast<size_t>(l)]);
}

struct Conv2D {
  static constexpr std::string_view name = "conv2d";
  static constexpr int min_inputs = 2, max_inputs = 2;
  enum : size_t { kStride, kPad, kAct, kDilation, kAlgorithm, kLayout };
  static AttrSchema attrs() {
    static const AttrSpec specs[] = {
        kStrideSpec,
        kPadSpec,
        kActSpec,
        {"d", AttrKind::IntList, {}, {}, 2},
        {"alg", AttrKind::Enum, {}, kConvAlgorithmNames},
        {"layout", AttrKind::Enum, {}, kConvLayoutNames}};
    return specs;
  }
  static constexpr OpTraits traits{};
  static int num_outputs(const Attrs &) { return 1; }

  struct Geometry {
    int64_t n, c, h, w, co, cw, kh, kw, groups;
    int64_t dh = 1, dw = 1; ///< dilation: taps this far apart
    int64_t eh = 0, ew = 0; ///< the window's extent (dilated_extent)
    Window y, x;
  };

  /// The dilation (1,1 when absent).
  static std::vector<int64_t> dilation(const Attrs &a) {
    return a.has(kDilation) ? a.list(kDilation) : std::vector<int64_t>{1, 1};
  }
  static bool dilated(const Attrs &a) {
    return dilation(a) != std::vector<int64_t>{1, 1};
  }
  /// The algorithm asked for (Direct when absent).
  static ConvAlgorithm algorithm(const Attrs &a) {
    return a.has(kAlgorithm) ? static_cast<ConvAlgorithm>(a.i(kAlgorithm))
                             : ConvAlgorithm::Direct;
  }

  static Geometry geometry(const Attrs &a, const Shape &x, const Shape &wt) {
    if (x.rank() != 4)
      fail(name, "input must have rank 4 (n,c,h,w), got ", x.str());
    if (wt.rank() != 4)
      fail(name, "weight must have rank 4 (co,ci,kh,kw), got ", wt.str());
    Geometry g{x[0], x[1], x[2], x[3], wt[0], wt[1], wt[2], wt[3],
               0,    1,    1,    0,    0,     {},    {}};
    if (g.cw < 1 || g.c % g.cw != 0)
      fail(name, "input channels ", g.c, " not divisible by weight channels ",
           g.cw);
    g.groups = g.c / g.cw;
    if (g.co % g.groups != 0)
      fail(name, "output channels ", g.co, " not divisible by groups ",
           g.groups);
    const auto d = dilation(a);
    // Bounded so that the kernel's extent cannot overflow.
    if (d[0] < 1 || d[1] < 1 || d[0] > (int64_t{1} << 31) ||
        d[1] > (int64_t{1} << 31))
      fail(name, "dilation must be from 1 to 2^31, got ", d[0], ",", d[1]);
    if (g.kh < 1 || g.kw < 1 || g.kh > (int64_t{1} << 31) ||
        g.kw > (int64_t{1} << 31))
      fail(name, "kernel must be from 1 to 2^31, got ", wt.str());
    g.dh = d[0];
    g.dw = d[1];
    g.eh = dilated_extent(g.kh, g.dh);
    g.ew = dilated_extent(g.kw, g.dw);
    const auto &s = a.list(kStride);
    const auto pad = static_cast<Padding>(a.i(kPad));
    g.y = window(name, "height", g.h, g.eh, s[0], pad);
    g.x = window(name, "width", g.w, g.ew, s[1], pad);
    return g;
  }

  /// One multiply-add per output element and kernel tap of its group.
  static int64_t macs(const Attrs &, InTypes in, const Types &out) {
    const Shape &w = in[1].shape;
    return out[0].shape.numel() * w[1] * w[2] * w[3];
  }
  static MaybeTypes infer(const Attrs &a, InTypes in) {
    const Geometry g = geometry(a, in[0].shape, in[1].shape);
    TensorType out(Shape{g.n, g.co, g.y.out, g.x.out});
    out.set_split(0, in[0].split(0));
    out.set_split(1, in[1].split(0));
    return Types{out};
  }

  template <Domain D>
  static void evaluate(const D &d, const Attrs &a, OpInputs<D> in,
                       OpOutputs<D> out) {
    const auto &x = *in[0];
    const auto &wt = *in[1];
    const Geometry g = geometry(a, x.shape, wt.shape);
    const auto &s = a.list(kStride);
    const auto act = static_cast<Activation>(a.i(kAct));
    const int64_t co_per_group = g.co / g.groups;
    int64_t idx = 0;
    for (int64_t b = 0; b < g.n; ++b)
      for (int64_t o = 0; o < g.co; ++o) {
        const int64_t c0 = (o / co_per_group) * g.cw;
        for (int64_t oy = 0; oy < g.y.out; ++oy)
          for (int64_t ox = 0; ox < g.x.out; ++ox) {
            auto acc = d.zero();
            for (int64_t ci = 0; ci < g.cw; ++ci)
              for (int64_t ky = 0; ky < g.kh; ++ky) {
                const int64_t iy = oy * s[0] - g.y.pad_before + ky * g.dh;
                if (iy < 0 || iy >= g.h)
                  continue;
                for (int64_t kx = 0; kx < g.kw; ++kx) {
                  const int64_t ix = ox * s[1] - g.x.pad_before + kx * g.dw;
                  if (ix < 0 || ix >= g.w)
                    continue;
                  acc = d.add(
                      acc,
                      d.mul(x[((b * g.c + c0 + ci) * g.h + iy) * g.w + ix],
                            wt[((o * g.cw + ci) * g.kh + ky) * g.kw + kx]));
                }
              }
            out[0][idx++] = activate(d, act, acc);
          }
      }
  }
};

} // namespace quarry::ops
