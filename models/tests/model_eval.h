//===- model_eval.h - Running an imported model in tests --------*- C++ -*-===//
#pragma once

#include "quarry/core/evaluate.h"
#include "quarry/core/float_domain.h"
#include "quarry/core/weights.h"
#include "quarry/models/onnx.h"

#include <gtest/gtest.h>

#include <vector>

namespace quarry::testing {

/// `m`'s outputs, reference-evaluated on inputs `in` with the model's own
/// weights.
inline std::vector<Tensor<float>> eval_all(const Model &m,
                                           const Bindings<float> &in) {
  Bindings<float> b = in;
  for (const auto &[name, w] : m.weights)
    b.emplace(name, w);
  return evaluate(FloatDomain{}, m.graph, b);
}

/// The values of `m`'s first output (eval_all).
inline std::vector<float> eval_first(const Model &m,
                                     const Bindings<float> &in) {
  return eval_all(m, in).at(0).data;
}

/// `a` and `b` (one model exported and imported again) compute the same,
/// within 1e-5, on the same inputs seeded by `seed`, each with its own
/// weights.
inline void expect_same_outputs(const Model &a, const Model &b, uint64_t seed) {
  const Bindings<float> in = bind_variables(a.graph, a.weights, seed);
  Bindings<float> in_b = bind_variables(b.graph, b.weights, seed);
  for (const auto &[name, t] : in)
    if (in_b.count(name) && !a.weights.count(name))
      in_b.insert_or_assign(name, t);
  const auto ya = evaluate(FloatDomain{}, a.graph, in);
  const auto yb = evaluate(FloatDomain{}, b.graph, in_b);
  ASSERT_EQ(ya.size(), yb.size());
  for (size_t k = 0; k < ya.size(); ++k) {
    ASSERT_EQ(ya[k].shape, yb[k].shape);
    for (int64_t i = 0; i < ya[k].numel(); ++i)
      EXPECT_NEAR(ya[k][i], yb[k][i], 1e-5) << "output " << k << " at " << i;
  }
}

} // namespace quarry::testing
