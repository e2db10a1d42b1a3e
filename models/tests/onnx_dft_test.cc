//===- onnx_dft_test.cc - DFT against its definition ----------------------===//
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

} // namespace
} // namespace quarry
