//===- onnx_lp_pool_test.cc - LpPool and GlobalLpPool by definition -------===//
#include "onnx_builder.h"

#include "quarry/core/evaluate.h"
#include "quarry/core/float_domain.h"
#include "quarry/core/weights.h"
#include "quarry/models/onnx.h"

#include <gtest/gtest.h>

#include <cmath>

namespace quarry {
namespace {

using namespace quarry::testing;

TEST(OnnxLpPool, EachWindowsNormOfItsElementsPaddingAddingNothing) {
  // x [1,2,4,5], windows 2x3 every 2 rows and 1 column, a row of padding
  // above and a column to the right; p = 3.
  OnnxModel m(11);
  m.input("x", {1, 2, 4, 5}).output("y");
  auto &n = m.node("LpPool", {"x"}, {"y"});
  set_ints(n, "kernel_shape", {2, 3});
  set_ints(n, "strides", {2, 1});
  set_ints(n, "pads", {1, 0, 0, 1});
  set_int(n, "p", 3);
  const Model g = import_onnx_bytes(m.bytes(), "lp.onnx");
  EXPECT_TRUE(kept_operator_types(g).empty());
  const Bindings<float> b = bind_variables(g.graph, g.weights, 4);
  const Tensor<float> y = evaluate(FloatDomain{}, g.graph, b).at(0);
  const int64_t oh = (4 + 1 - 2) / 2 + 1, ow = (5 + 1 - 3) / 1 + 1;
  ASSERT_EQ(y.shape, (Shape{1, 2, oh, ow}));
  const Tensor<float> &x = b.at("x");
  for (int64_t c = 0; c < 2; ++c)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        double sum = 0;
        for (int64_t a = 0; a < 2; ++a)
          for (int64_t e = 0; e < 3; ++e) {
            const int64_t r = i * 2 - 1 + a, q = j + e;
            if (r >= 0 && r < 4 && q < 5)
              sum += std::pow(std::fabs(x[(c * 4 + r) * 5 + q]), 3.0);
          }
        EXPECT_NEAR(y[(c * oh + i) * ow + j], std::cbrt(sum), 1e-5)
            << c << "," << i << "," << j;
      }
}

TEST(OnnxLpPool, GlobalOverEverySpatialAxis) {
  for (int64_t p : {1, 2, 4}) {
    OnnxModel m(13);
    m.input("x", {1, 2, 3, 2, 2}).output("y");
    set_int(m.node("GlobalLpPool", {"x"}, {"y"}), "p", p);
    const Model g = import_onnx_bytes(m.bytes(), "glp.onnx");
    const Bindings<float> b = bind_variables(g.graph, g.weights, 5);
    const Tensor<float> y = evaluate(FloatDomain{}, g.graph, b).at(0);
    ASSERT_EQ(y.shape, (Shape{1, 2, 1, 1, 1}));
    for (int64_t c = 0; c < 2; ++c) {
      double sum = 0;
      for (int64_t i = 0; i < 12; ++i)
        sum += std::pow(std::fabs(b.at("x")[c * 12 + i]), double(p));
      EXPECT_NEAR(y[c], std::pow(sum, 1.0 / double(p)), 1e-5) << p;
    }
  }
}

} // namespace
} // namespace quarry
