//===- onnx_resize_test.cc - Resize at scales its extents do not match ----===//
//
// ONNX floors a resize's output extents but maps coordinates by the scale
// it was given: where the two differ, import computes each resized axis as
// a product with the matrix of its taps at that scale.
//
//===----------------------------------------------------------------------===//
#include "model_eval.h"
#include "onnx_builder.h"

#include "quarry/models/onnx.h"

#include <gtest/gtest.h>

namespace quarry {
namespace {

using namespace quarry::testing;

std::vector<float> resized(const std::string &mode, const std::string &coord,
                           const std::vector<float> &scales) {
  OnnxModel m(13);
  m.input("x", {1, 1, 2, 4}).output("y");
  m.floats("roi", {0}, {}).floats("scales", {4}, scales);
  auto &n = m.node("Resize", {"x", "roi", "scales"}, {"y"});
  set_string(n, "mode", mode);
  set_string(n, "coordinate_transformation_mode", coord);
  const Model g = import_onnx_bytes(m.bytes(), "resize.onnx");
  EXPECT_TRUE(kept_operator_types(g).empty());
  Bindings<float> in;
  in.emplace("x",
             Tensor<float>(Shape{1, 1, 2, 4}, {1, 2, 4, 8, 16, 32, 64, 128}));
  return eval_first(g, in);
}

TEST(OnnxResize, ScalesNotInTheExtentsRatioMapCoordinatesByTheScale) {
  // Scale 0.6: 2 -> 1 and 4 -> 2 rows and columns. half_pixel maps output
  // 0 to (0.5 / 0.6) - 0.5 = 1/3 and output 1 to 2, both axes.
  const std::vector<float> y =
      resized("linear", "half_pixel", {1, 1, 0.6f, 0.6f});
  ASSERT_EQ(y.size(), 2u);
  const auto row = [](double a, double b) { return a * 2 / 3 + b / 3; };
  EXPECT_NEAR(y[0], row(row(1, 2), row(16, 32)), 1e-4);
  EXPECT_NEAR(y[1], row(4, 64), 1e-4);
  // align_corners divides by the width before flooring: 4 x 0.6 - 1.
  const std::vector<float> a =
      resized("linear", "align_corners", {1, 1, 1, 0.6f});
  ASSERT_EQ(a.size(), 4u);
  const double c = 3 / (4 * 0.6 - 1); // output 1's coordinate, 2.14
  EXPECT_NEAR(a[0], 1, 1e-6);
  EXPECT_NEAR(a[1], 4 + (c - 2) * (8 - 4), 1e-4);
}

TEST(OnnxResize, TfHalfPixelForNearestNeighbours) {
  // (o + 0.5) / 0.5: outputs 0 and 1 of a halved axis read 1 and 3.
  const std::vector<float> y =
      resized("nearest", "tf_half_pixel_for_nn", {1, 1, 1, 0.5f});
  EXPECT_EQ(y, (std::vector<float>{2, 8, 32, 128}));
}

} // namespace
} // namespace quarry
