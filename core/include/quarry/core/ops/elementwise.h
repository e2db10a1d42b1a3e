//===- ops/elementwise.h - ewadd, ewmul ------------------------*- C++ -*-===//
//
// Binary elementwise operators over tensors of equal shape (no broadcasting,
// as in TASO).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/common.h"

namespace quarry::ops {

enum class BinaryFn { Add, Mul };

template <BinaryFn Fn> struct Elementwise {
  static constexpr std::string_view name =
      Fn == BinaryFn::Add ? "ewadd" : "ewmul";
  static constexpr int min_inputs = 2, max_inputs = 2;
  static AttrSchema attrs() { return {}; }
  static constexpr OpTraits traits{.commutative = true};
  static int num_outputs(const Attrs &) { return 1; }
  static MaybeTypes infer(const Attrs &, InTypes in) {
    if (in[0].shape != in[1].shape)
      fail(name, "shapes differ: ", in[0].shape.str(), " and ",
           in[1].shape.str());
    return Types{elementwise_type(in)};
  }
  template <Domain D>
  static void evaluate(const D &d, const Attrs &, OpInputs<D> in,
                       OpOutputs<D> out) {
    const auto &x = *in[0];
    const auto &y = *in[1];
    for (int64_t i = 0; i < x.numel(); ++i)
      out[0][i] = Fn == BinaryFn::Add ? d.add(x[i], y[i]) : d.mul(x[i], y[i]);
  }
};

using EwAdd = Elementwise<BinaryFn::Add>;
using EwMul = Elementwise<BinaryFn::Mul>;

} // namespace quarry::ops
