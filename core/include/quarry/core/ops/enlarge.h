//===- ops/enlarge.h - Pad a conv kernel with zeros ----------*- C++ -*-===//
//
// enlarge[k=KH,KW](w): w is [co, ci, kh, kw] with kh <= KH, kw <= KW and
// KH - kh, KW - kw even; the result is [co, ci, KH, KW] with w at its centre,
// offset ((KH-kh)/2, (KW-kw)/2), and zeros around it. With same padding,
// conv2d(x, enlarge(w)) equals conv2d(x, w). An odd difference has no
// centre, and the equation would fail; it is refused, so that a rule
// proved with the equation never applies there.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/common.h"

namespace quarry::ops {

struct Enlarge {
  static constexpr std::string_view name = "enlarge";
  static constexpr int min_inputs = 1, max_inputs = 1;
  enum : size_t { kKernel };
  static AttrSchema attrs() {
    static const AttrSpec specs[] = {kKernelSpec};
    return specs;
  }
  static constexpr OpTraits traits{};
  static int num_outputs(const Attrs &) { return 1; }

  static MaybeTypes infer(const Attrs &a, InTypes in) {
    const TensorType &w = in[0];
    require_rank(name, "kernel", w, 4);
    const auto &k = a.list(kKernel);
    if (w.shape[2] > k[0] || w.shape[3] > k[1])
      fail(name, "kernel ", w.shape.str(), " larger than target ", k[0], "x",
           k[1]);
    if ((k[0] - w.shape[2]) % 2 != 0 || (k[1] - w.shape[3]) % 2 != 0)
      fail(name, "kernel ", w.shape.str(), " has no centre in ", k[0], "x",
           k[1], " (the differences must be even)");
    TensorType out(Shape{w.shape[0], w.shape[1], k[0], k[1]});
    out.set_split(0, w.split(0));
    out.set_split(1, w.split(1));
    return Types{out};
  }

  template <Domain D>
  static void evaluate(const D &d, const Attrs &a, OpInputs<D> in,
                       OpOutputs<D> out) {
    const auto &w = *in[0];
    auto &y = out[0];
    const auto &k = a.list(kKernel);
    const int64_t planes = w.shape[0] * w.shape[1], kh = w.shape[2],
                  kw = w.shape[3];
    const int64_t dy = (k[0] - kh) / 2, dx = (k[1] - kw) / 2;
    for (int64_t i = 0; i < y.numel(); ++i)
      y[i] = d.zero();
    for (int64_t p = 0; p < planes; ++p)
      for (int64_t i = 0; i < kh; ++i)
        for (int64_t j = 0; j < kw; ++j)
          y[(p * k[0] + i + dy) * k[1] + j + dx] = w[(p * kh + i) * kw + j];
  }
};

} // namespace quarry::ops
