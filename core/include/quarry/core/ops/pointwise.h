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
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/float_only.h"

namespace quarry::ops {

enum class PointwiseFn : int64_t {
  Sqrt,
  Exp,
  Neg,
  Abs,
  Erf,
  Reciprocal,
  LeakyRelu,
  Clip,
  HardSigmoid,
  HardSwish
};
inline constexpr std::string_view kPointwiseNames[] = {
    "sqrt",       "exp",        "neg",  "abs",          "erf",
    "reciprocal", "leaky_relu", "clip", "hard_sigmoid", "hard_swish"};

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
