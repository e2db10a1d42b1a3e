//===- ops/layer_norm.h - Layer normalization ------------------*- C++ -*-===//
//
// layer_norm[axis=a eps=e](x, scale, bias), float only: ONNX's
// LayerNormalization. Each row of x (its elements along axes a to the
// last, read as one run) less the row's mean, over the square root of the
// row's variance (the mean of the squared differences) plus e, times
// scale, plus bias. scale and bias (optional) hold one value per element
// of a row, in any shape of that many elements: ONNX lets them broadcast
// over the row, and import makes them that size.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/float_only.h"

namespace quarry::ops {

struct LayerNorm : FloatOnly<LayerNorm> {
  static constexpr std::string_view name = "layer_norm";
  static constexpr int min_inputs = 2, max_inputs = 3;
  enum : size_t { kAxis, kEps };
  static AttrSchema attrs() {
    static const AttrSpec specs[] = {{"axis", AttrKind::Int, int64_t{-1}},
                                     {"eps", AttrKind::Real, 1e-5}};
    return specs;
  }
  /// The rows of `x` and the elements of a row, for axis `axis`.
  static std::pair<int64_t, int64_t> rows(const Attrs &a, const Shape &x);
  static MaybeTypes infer(const Attrs &a, InTypes in);
  static void run(const Attrs &a, FloatInputs in, FloatOutputs out);
};

} // namespace quarry::ops
