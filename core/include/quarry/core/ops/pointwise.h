//===- ops/pointwise.h - Elementwise functions outside the algebra -*- C++
//-*-===//
//
// pointwise[fn=F alpha=a beta=b](x), float only. With y for the result:
//   sqrt: sqrt(x)            exp: e^x                neg: -x
//   abs: |x|                 erf: erf(x)             reciprocal: 1/x
//   leaky_relu: x >= 0 ? x : alpha*x
//   clip: min(max(x, alpha), beta)
//   hard_sigmoid: max(0, min(1, alpha*x + beta))
//   hard_swish: x * max(0, min(1, x/6 + 1/2))
//   log, floor, ceil, sin, cos, tan, asin, acos, atan, sinh, cosh, asinh,
//   acosh, atanh: the C library's float functions
//   round: to nearest, halves to even        sign: -1, 0 or 1
//   softplus: log(1 + e^x)                   softsign: x / (1 + |x|)
//   elu: x > 0 ? x : alpha*(e^x - 1)
//   selu: beta * (x > 0 ? x : alpha*(e^x - 1))
//   celu: max(0, x) + min(0, alpha*(e^(x/alpha) - 1))
//   thresholded_relu: x > alpha ? x : 0
//   shrink: x < -alpha ? x + beta : x > alpha ? x - beta : 0
//   gelu: x (1 + erf(x / sqrt 2)) / 2       silu: x sigmoid(x)
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/float_only.h"
#include "quarry/core/ops/scalar_fns.h"

namespace quarry::ops {

struct Pointwise : FloatOnly<Pointwise> {
  static constexpr std::string_view name = "pointwise";
  static constexpr int min_inputs = 1, max_inputs = 1;
  enum : size_t { kFn, kAlpha, kBeta };
  static AttrSchema attrs() {
    static const AttrSpec specs[] = {
        {"fn", AttrKind::Enum, int64_t{0}, kPointwiseNames},
        {"alpha", AttrKind::Real, 0.0},
        {"beta", AttrKind::Real, 0.0}};
    return specs;
  }
  static MaybeTypes infer(const Attrs &, InTypes in) {
    return Types{elementwise_type(in)};
  }
  static void run(const Attrs &a, FloatInputs in, FloatOutputs out);
};

} // namespace quarry::ops
