//===- onnx_dft_test.cc - DFT and STFT against their definitions ----------===//
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

TEST(OnnxDft, EqualsItsDefinitionPaddedCutAndOneSided) {
  // A complex signal of 6 along axis 1, at lengths 8 (zeros past it) and
  // 4 (cut), forward one-sided and inverse.
  struct Case {
    int64_t length;
    bool inverse, onesided;
  };
  for (const Case c :
       {Case{8, false, true}, Case{4, true, false}, Case{6, false, false}}) {
    OnnxModel m(17);
    m.input("x", {2, 6, 3, 2}).output("y").ints("len", {c.length});
    auto &n = m.node("DFT", {"x", "len"}, {"y"});
    set_int(n, "axis", 1);
    set_int(n, "inverse", c.inverse);
    set_int(n, "onesided", c.onesided);
    // dft_length is a scalar.
    m.proto().mutable_graph()->mutable_initializer(0)->clear_dims();
    const Model g = import_onnx_bytes(m.bytes(), "dft.onnx");
    const Bindings<float> b = bind_variables(g.graph, g.weights, 9);
    const Tensor<float> y = evaluate(FloatDomain{}, g.graph, b).at(0);
    const Tensor<float> &x = b.at("x");
    const int64_t out = c.onesided ? c.length / 2 + 1 : c.length;
    ASSERT_EQ(y.shape, (Shape{2, out, 3, 2}));
    const double s = c.inverse ? 1 : -1;
    for (int64_t bi = 0; bi < 2; ++bi)
      for (int64_t k = 0; k < out; ++k)
        for (int64_t j = 0; j < 3; ++j) {
          double re = 0, im = 0;
          for (int64_t t = 0; t < std::min<int64_t>(6, c.length); ++t) {
            const double th = 2 * M_PI * double(t * k) / double(c.length);
            const double xr = x[((bi * 6 + t) * 3 + j) * 2],
                         xi = x[((bi * 6 + t) * 3 + j) * 2 + 1];
            re += xr * std::cos(th) - s * xi * std::sin(th);
            im += xi * std::cos(th) + s * xr * std::sin(th);
          }
          if (c.inverse) {
            re /= double(c.length);
            im /= double(c.length);
          }
          const int64_t at = ((bi * out + k) * 3 + j) * 2;
          EXPECT_NEAR(y[at], re, 1e-5);
          EXPECT_NEAR(y[at + 1], im, 1e-5);
        }
  }
}

TEST(OnnxStft, EqualsItsDefinitionRealAndComplex) {
  // A signal of 11, frames of 4 every 3 (3 frames): real with a window,
  // one-sided; complex without one, both sides.
  struct Case {
    int64_t parts;
    bool window, onesided;
  };
  for (const Case c : {Case{1, true, true}, Case{2, false, false}}) {
    SCOPED_TRACE(c.parts);
    OnnxModel m(17);
    m.input("x", {2, 11, c.parts}).output("y").ints("step", {3});
    m.ints("len", {4});
    const std::vector<float> w{0.1f, 0.7f, 1.0f, 0.4f};
    if (c.window)
      m.floats("w", {4}, w);
    auto &n = m.node("STFT", {"x", "step", c.window ? "w" : "", "len"}, {"y"});
    set_int(n, "onesided", c.onesided);
    // frame_step and frame_length are scalars.
    for (int k : {0, 1})
      m.proto().mutable_graph()->mutable_initializer(k)->clear_dims();
    const Model g = import_onnx_bytes(m.bytes(), "stft.onnx");
    EXPECT_TRUE(kept_operator_types(g).empty());
    const Bindings<float> b = bind_variables(g.graph, g.weights, 5);
    const Tensor<float> y = evaluate(FloatDomain{}, g.graph, b).at(0);
    const Tensor<float> &x = b.at("x");
    const int64_t bins = c.onesided ? 3 : 4;
    ASSERT_EQ(y.shape, (Shape{2, 3, bins, 2}));
    for (int64_t bi = 0; bi < 2; ++bi)
      for (int64_t f = 0; f < 3; ++f)
        for (int64_t k = 0; k < bins; ++k) {
          double re = 0, im = 0;
          for (int64_t t = 0; t < 4; ++t) {
            const double th = 2 * M_PI * double(t * k) / 4.0;
            const double wt = c.window ? w[t] : 1.0;
            const int64_t at = (bi * 11 + f * 3 + t) * c.parts;
            const double xr = wt * x[at],
                         xi = c.parts == 2 ? wt * x[at + 1] : 0;
            re += xr * std::cos(th) + xi * std::sin(th);
            im += xi * std::cos(th) - xr * std::sin(th);
          }
          const int64_t at = ((bi * 3 + f) * bins + k) * 2;
          EXPECT_NEAR(y[at], re, 1e-5);
          EXPECT_NEAR(y[at + 1], im, 1e-5);
        }
  }
}

TEST(OnnxStft, AComputedFrameStepKeepsTheNode) {
  OnnxModel m(17);
  m.input("x", {1, 8, 1}).input("step", {}, onnx::TensorProto::INT64);
  m.output("y").ints("len", {4});
  m.proto().mutable_graph()->mutable_initializer(0)->clear_dims();
  m.node("STFT", {"x", "step", "", "len"}, {"y"});
  const Model g = import_onnx_bytes(m.bytes(), "stft.onnx");
  EXPECT_EQ(kept_operator_types(g), (std::vector<std::string>{"STFT"}));
}

TEST(OnnxStft, AHugeBasisIsKeptNotBuilt) {
  // Frames of 8,192: its kernels would hold 2 x 4,097 x 8,192 values.
  OnnxModel m(17);
  m.input("x", {1, 8192, 1}).output("y").ints("step", {512});
  m.proto().mutable_graph()->mutable_initializer(0)->clear_dims();
  m.node("STFT", {"x", "step"}, {"y"});
  const Model g = import_onnx_bytes(m.bytes(), "stft.onnx");
  EXPECT_EQ(kept_operator_types(g), (std::vector<std::string>{"STFT"}));
}

} // namespace
} // namespace quarry
