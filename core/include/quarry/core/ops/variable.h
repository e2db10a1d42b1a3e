//===- ops/variable.h - Graph inputs and weights -------------*- C++ -*-===//
//
// `input` and `weight` nodes are the graph's free tensors; their values come
// from the caller. They differ only in intent: weights are known before the
// graph runs (the optimizer may fold them), inputs are activations.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/common.h"

namespace quarry::ops {

template <bool IsWeight> struct Variable {
  static constexpr std::string_view name = IsWeight ? "weight" : "input";
  static constexpr int min_inputs = 0, max_inputs = 0;
  enum : size_t { kShape };
  static AttrSchema attrs() {
    static const AttrSpec specs[] = {kShapeSpec};
    return specs;
  }
  static constexpr OpTraits traits{.variable = true};
  static int num_outputs(const Attrs &) { return 1; }
  static MaybeTypes infer(const Attrs &a, InTypes) {
    return types_from_shape_attr(name, a, kShape);
  }
  /// Values are bound by the evaluator, never computed.
  template <Domain D>
  static void evaluate(const D &, const Attrs &, OpInputs<D>, OpOutputs<D>) {}
};

using Input = Variable<false>;
using Weight = Variable<true>;

} // namespace quarry::ops
