//===- ops/unary.h - relu, sigmoid, tanh -----------------------*- C++ -*-===//
#pragma once

#include "quarry/core/ops/common.h"

namespace quarry::ops {

/// An elementwise nonlinear function of one tensor.
template <UnaryFn Fn> struct Unary {
  static constexpr std::string_view name = Fn == UnaryFn::Relu      ? "relu"
                                           : Fn == UnaryFn::Sigmoid ? "sigmoid"
                                                                    : "tanh";
  static constexpr int min_inputs = 1, max_inputs = 1;
  static AttrSchema attrs() { return {}; }
  static constexpr OpTraits traits{
      .opaque_in_field = true,
      .activation = Fn == UnaryFn::Relu      ? Activation::Relu
                    : Fn == UnaryFn::Sigmoid ? Activation::Sigmoid
                                             : Activation::Tanh};
  static int num_outputs(const Attrs &) { return 1; }
  static MaybeTypes infer(const Attrs &, InTypes in) {
    return Types{elementwise_type(in)};
  }
  template <Domain D>
  static void evaluate(const D &d, const Attrs &, OpInputs<D> in,
                       OpOutputs<D> out) {
    const auto &x = *in[0];
    for (int64_t i = 0; i < x.numel(); ++i)
      out[0][i] = d.unary(Fn, x[i]);
  }
};

using Relu = Unary<UnaryFn::Relu>;
using Sigmoid = Unary<UnaryFn::Sigmoid>;
using Tanh = Unary<UnaryFn::Tanh>;

} // namespace quarry::ops
