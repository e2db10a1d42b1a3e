//===- ops/scalar_mul.h - tensor times a 0-D scalar ----------*- C++ -*-===//
#pragma once

#include "quarry/core/ops/common.h"

namespace quarry::ops {

struct ScalarMul {
  static constexpr std::string_view name = "scalar_mul";
  static constexpr int min_inputs = 2, max_inputs = 2;
  static AttrSchema attrs() { return {}; }
  static constexpr OpTraits traits{};
  static int num_outputs(const Attrs &) { return 1; }
  static MaybeTypes infer(const Attrs &, InTypes in) {
    if (in[1].rank() != 0)
      fail(name, "second operand must be a scalar (rank 0), got ",
           in[1].shape.str());
    return Types{in[0]};
  }
  template <Domain D>
  static void evaluate(const D &d, const Attrs &, OpInputs<D> in,
                       OpOutputs<D> out) {
    const auto &x = *in[0];
    const auto &s = (*in[1])[0];
    for (int64_t i = 0; i < x.numel(); ++i)
      out[0][i] = d.mul(x[i], s);
  }
};

} // namespace quarry::ops
