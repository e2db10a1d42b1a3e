//===- onnx_conv_transpose_test.cc - Dilated transposed convolutions ------===//
//
// A ConvTranspose with dilations imports as the undilated operator over
// its kernel with zeros between the taps, and a 3-D one as its 2-D form
// per tap of depth: each input element scatters w[i][j] to output
// (y * s + i * d, x * s + j * d).
//
//===----------------------------------------------------------------------===//
#include "model_eval.h"
#include "onnx_builder.h"

#include "quarry/models/onnx.h"

#include <gtest/gtest.h>

#include <functional>

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

TEST(OnnxConvTranspose, ThreeDimensionalByItsDefinition) {
  // x [1,2,3,2,2], w [2,2,2,2,2] (2 groups of one channel), strides 2,1,1,
  // dilations 1,2,1, pads 1,0,0 before and 0,1,0 after, output_padding
  // 1,0,0, a bias: each input element scatters w to (i * s + k * d - pad).
  const Ints xs{1, 2, 3, 2, 2}, ws{2, 1, 2, 2, 2};
  const Ints s{2, 1, 1}, d{1, 2, 1}, p{1, 0, 0, 0, 1, 0}, op{1, 0, 0};
  OnnxModel m(13);
  m.input("x", xs).output("y");
  std::vector<float> w(16), bias{0.5f, -2};
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = static_cast<float>(i % 5) - 1.5f;
  m.floats("w", ws, w).floats("b", {2}, bias);
  auto &n = m.node("ConvTranspose", {"x", "w", "b"}, {"y"});
  set_ints(n, "strides", s);
  set_ints(n, "dilations", d);
  set_ints(n, "pads", p);
  set_ints(n, "output_padding", op);
  set_int(n, "group", 2);
  const Model g = import_onnx_bytes(m.bytes(), "ct3.onnx");
  EXPECT_TRUE(kept_operator_types(g).empty());
  std::vector<float> x(12 * 2);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>((i * 7) % 11) - 5;
  Bindings<float> in;
  in.emplace("x", Tensor<float>(Shape(xs), x));
  const std::vector<float> y = eval_first(g, in);
  Ints out(3);
  for (int a = 0; a < 3; ++a)
    out[a] = s[a] * (xs[2 + a] - 1) + op[a] + (ws[2 + a] - 1) * d[a] + 1 -
             p[a] - p[a + 3];
  std::vector<double> want(2 * out[0] * out[1] * out[2], 0.0);
  for (int64_t c = 0; c < 2; ++c)
    for (size_t o = 0; o < want.size() / 2; ++o)
      want[c * (want.size() / 2) + o] = bias[c];
  for (int64_t c = 0; c < 2; ++c) // group c: input channel c to output c
    for (int64_t i0 = 0; i0 < 3; ++i0)
      for (int64_t i1 = 0; i1 < 2; ++i1)
        for (int64_t i2 = 0; i2 < 2; ++i2)
          for (int64_t k0 = 0; k0 < 2; ++k0)
            for (int64_t k1 = 0; k1 < 2; ++k1)
              for (int64_t k2 = 0; k2 < 2; ++k2) {
                const int64_t o0 = i0 * s[0] + k0 * d[0] - p[0],
                              o1 = i1 * s[1] + k1 * d[1] - p[1],
                              o2 = i2 * s[2] + k2 * d[2] - p[2];
                if (o0 < 0 || o0 >= out[0] || o1 < 0 || o1 >= out[1] ||
                    o2 < 0 || o2 >= out[2])
                  continue;
                want[((c * out[0] + o0) * out[1] + o1) * out[2] + o2] +=
                    x[((c * 3 + i0) * 2 + i1) * 2 + i2] *
                    w[((c * 2 + k0) * 2 + k1) * 2 + k2];
              }
  ASSERT_EQ(y.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(y[i], want[i], 1e-4) << i;
}

TEST(OnnxConvTranspose, ThreeDimensionalPadsFromAutoPadOrOutputShape) {
  // x [1,1,3,4,5], w [1,1,3,3,2] at strides 2: the full outputs are 7, 9
  // and 10 long. SAME gives 6, 8 and 10 (totals 1, 1, 0); an output_shape
  // of 6, 9, 10 pads the first axis alone, at its start; one of 8, 9, 12
  // is past the full output on two axes, which output_padding makes up.
  const Ints xs{1, 1, 3, 4, 5}, ws{1, 1, 3, 3, 2};
  auto model = [&](const std::function<void(onnx::NodeProto &)> &set) {
    OnnxModel m(13);
    m.input("x", xs).output("y");
    std::vector<float> w(18);
    for (size_t i = 0; i < w.size(); ++i)
      w[i] = static_cast<float>(i % 7) - 3;
    m.floats("w", ws, w);
    auto &n = m.node("ConvTranspose", {"x", "w"}, {"y"});
    set_ints(n, "strides", {2, 2, 2});
    set(n);
    const Model g = import_onnx_bytes(m.bytes(), "ct3.onnx");
    EXPECT_TRUE(kept_operator_types(g).empty());
    std::vector<float> x(60);
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = static_cast<float>((i * 5) % 13) - 6;
    Bindings<float> in;
    in.emplace("x", Tensor<float>(Shape(xs), x));
    return eval_first(g, in);
  };
  auto explicit_pads = [&](const Ints &pads, const Ints &out_pad) {
    return model([&](onnx::NodeProto &n) {
      set_ints(n, "pads", pads);
      set_ints(n, "output_padding", out_pad);
    });
  };
  struct Case {
    const char *auto_pad;
    Ints output_shape, pads, out_pad;
  };
  const Case cases[] = {
      {"SAME_UPPER", {}, {0, 0, 0, 1, 1, 0}, {0, 0, 0}},
      {"SAME_LOWER", {}, {1, 1, 0, 0, 0, 0}, {0, 0, 0}},
      {nullptr, {6, 9, 10}, {1, 0, 0, 0, 0, 0}, {0, 0, 0}},
      {nullptr, {1, 1, 8, 9, 12}, {0, 0, 0, 0, 0, 0}, {1, 0, 2}}};
  for (const Case &c : cases) {
    const std::vector<float> got = model([&](onnx::NodeProto &n) {
      if (c.auto_pad)
        set_string(n, "auto_pad", c.auto_pad);
      if (!c.output_shape.empty())
        set_ints(n, "output_shape", c.output_shape);
    });
    EXPECT_EQ(got, explicit_pads(c.pads, c.out_pad))
        << (c.auto_pad ? c.auto_pad : "output_shape");
  }
}

} // namespace
} // namespace quarry
