//===- onnx_import_test_util.h - Imported models in tests --*- C++ -*-===//
#pragma once

#include "onnx_builder.h"

#include "quarry/core/evaluate.h"
#include "quarry/core/float_domain.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace quarry::testing {

/// `g` evaluated on the values `b` binds to its variables (b may bind
/// more: another graph's variables of the same names).
inline std::vector<Tensor<float>> run(const Graph &g,
                                      const Bindings<float> &b) {
  Bindings<float> mine;
  for (const Node &n : g.nodes())
    if (n.is_variable())
      mine.emplace(n.name, b.at(n.name));
  return evaluate(FloatDomain{}, g, mine);
}

/// Equal shapes, and every element within `tolerance` relative (plus the
/// same absolute).
inline void expect_close(const std::vector<Tensor<float>> &a,
                         const std::vector<Tensor<float>> &b,
                         double tolerance = 1e-4) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].shape, b[i].shape) << "output " << i;
    for (int64_t k = 0; k < a[i].numel(); ++k)
      ASSERT_NEAR(a[i][k], b[i][k], tolerance * (1 + std::fabs(b[i][k])))
          << "output " << i << " element " << k;
  }
}

/// One node of ONNX operator `type` from x to y.
inline OnnxModel unary(const std::string &type, Ints shape = {2, 3}) {
  OnnxModel m;
  m.input("x", shape).output("y");
  m.node(type, {"x"}, {"y"});
  return m;
}

/// One node of ONNX operator `type` from x ([2,3]) and y (`ys`) to z.
inline OnnxModel binary(const std::string &type, Ints ys) {
  OnnxModel m;
  m.input("x", {2, 3}).input("y", ys).output("z");
  m.node(type, {"x", "y"}, {"z"});
  return m;
}

/// x ([2,3]) times an initializer w ([3,4] of 0.5): a model with weights.
inline OnnxModel matmul_model() {
  OnnxModel m;
  m.input("x", {2, 3}).output("y");
  m.floats("w", {3, 4}, std::vector<float>(12, 0.5f));
  m.node("MatMul", {"x", "w"}, {"y"});
  return m;
}

} // namespace quarry::testing
