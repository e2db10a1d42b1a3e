//===- onnx_conv_transpose_test.cc - Dilated transposed convolutions ------===//
//
// A ConvTranspose with dilations imports as the undilated operator over
// its kernel with zeros between the taps: each input element scatters
// w[i][j] to output (y * s + i * d, x * s + j * d).
//
//===----------------------------------------------------------------------===//
#include "model_eval.h"
#include "onnx_builder.h"

#include "quarry/models/onnx.h"

#include <gtest/gtest.h>

namespace quarry {
namespace {

using namespace quarry::testing;

TEST(OnnxConvTranspose, DilationsScatterTheTapsApart) {
  // x [1,1,2,3], w [1,1,2,2] at dilations 2,3 and strides 2,1: y is
  // [1,1,(2-1)*2+(2-1)*2+1, (3-1)*1+(2-1)*3+1] = [1,1,5,6].
  OnnxModel m(13);
  m.input("x", {1, 1, 2, 3}).output("y");
  const std::vector<float> w{1, 2, 3, 4};
  m.floats("w", {1, 1, 2, 2}, w);
  auto &n = m.node("ConvTranspose", {"x", "w"}, {"y"});
  set_ints(n, "dilations", {2, 3});
  set_ints(n, "strides", {2, 1});
  const Model g = import_onnx_bytes(m.bytes(), "ct.onnx");
  EXPECT_TRUE(kept_operator_types(g).empty());
  const std::vector<float> x{1, 10, 100, 1000, 10000, 100000};
  Bindings<float> in;
  in.emplace("x", Tensor<float>(Shape{1, 1, 2, 3}, x));
  const std::vector<float> y = eval_first(g, in);
  std::vector<double> want(5 * 6, 0.0);
  for (int iy = 0; iy < 2; ++iy)
    for (int ix = 0; ix < 3; ++ix)
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
          want[(iy * 2 + i * 2) * 6 + ix + j * 3] +=
              x[iy * 3 + ix] * w[i * 2 + j];
  ASSERT_EQ(y.size(), want.size());
  for (size_t k = 0; k < want.size(); ++k)
    EXPECT_FLOAT_EQ(y[k], static_cast<float>(want[k])) << k;
}

} // namespace
} // namespace quarry
