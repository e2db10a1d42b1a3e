//===- float_eval_test.cc - Float semantics against hand computation ------===//
#include "float_eval_helpers.h"

#include <gtest/gtest.h>

#include <cmath>

namespace quarry {
namespace {

using namespace quarry::testing;

TEST(FloatEval, MatMul) {
  T a({2, 2}, {1, 2, 3, 4}), b({2, 2}, {5, 6, 7, 8});
  expect_values(
      run("input a\ninput b\ny = matmul(a, b)\noutput y", {{"a", a}, {"b", b}}),
      {2, 2}, {19, 22, 43, 50});
  T n({1, 2}, {-1, 2});
  expect_values(run("input a\ninput b\ny = matmul[act=relu](a, b)\noutput y",
                    {{"a", n}, {"b", b}}),
                {1, 2}, {9, 10}); // [-5+14, -6+16]
}

TEST(FloatEval, Conv2DSamePadding) {
  // 1x1x3x3 input, all-ones 3x3 kernel: each output sums its neighbourhood.
  T x({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  T w({1, 1, 3, 3}, std::vector<float>(9, 1.0f));
  expect_values(run("input x\nweight w\ny = conv2d(x, w)\noutput y",
                    {{"x", x}, {"w", w}}),
                {1, 1, 3, 3}, {12, 21, 16, 27, 45, 33, 24, 39, 28});
  // Stride 2 with same padding reads rows/cols 0 and 2 as window centres.
  expect_values(run("input x\nweight w\ny = conv2d[s=2,2](x, w)\noutput y",
                    {{"x", x}, {"w", w}}),
                {1, 1, 2, 2}, {12, 16, 24, 28});
}

TEST(FloatEval, Conv2DValidGroupedAndRelu) {
  // Two channels, depthwise (groups = 2), 2x2 kernels, valid padding.
  T x({1, 2, 2, 2}, {1, 2, 3, 4, 1, 1, 1, 1});
  T w({2, 1, 2, 2}, {1, 0, 0, 1, -1, -1, -1, -1});
  expect_values(
      run("input x\nweight w\ny = conv2d[pad=valid act=relu](x, w)\noutput y",
          {{"x", x}, {"w", w}}),
      {1, 2, 1, 1}, {5, 0}); // 1+4, relu(-4)
}

// A dilated kernel reads taps d apart: the same sums as an undilated
// convolution over the kernel with d - 1 zeros between its taps, at the
// same padding (the window's extent is equal), strides, groups and act.
TEST(FloatEval, Conv2DDilatedEqualsTheKernelSpreadWithZeros) {
  struct Case {
    std::string attrs;
    Shape x, w;
    int64_t dh, dw;
  };
  const Case cases[] = {
      {"", {1, 2, 9, 9}, {3, 2, 3, 3}, 2, 2},
      {"s=2,1 ", {2, 2, 10, 11}, {4, 1, 3, 2}, 3, 2},
      {"pad=valid act=relu ", {1, 4, 12, 9}, {6, 2, 2, 3}, 4, 1},
      {"s=3,3 pad=valid ", {1, 1, 13, 13}, {2, 1, 3, 3}, 5, 5},
  };
  for (const Case &c : cases) {
    T x(c.x, 0.0f), w(c.w, 0.0f);
    for (int64_t i = 0; i < x.shape.numel(); ++i)
      x[i] = static_cast<float>((i * 37) % 11) - 5.0f;
    for (int64_t i = 0; i < w.shape.numel(); ++i)
      w[i] = static_cast<float>((i * 13) % 7) - 3.0f;
    const Shape &k = c.w;
    T spread(Shape{k[0], k[1], (k[2] - 1) * c.dh + 1, (k[3] - 1) * c.dw + 1},
             0.0f);
    for (int64_t oc = 0; oc < k[0] * k[1]; ++oc)
      for (int64_t i = 0; i < k[2]; ++i)
        for (int64_t j = 0; j < k[3]; ++j)
          spread[(oc * spread.shape[2] + i * c.dh) * spread.shape[3] +
                 j * c.dw] = w[(oc * k[2] + i) * k[3] + j];
    const std::string d =
        "d=" + std::to_string(c.dh) + "," + std::to_string(c.dw);
    const T dilated = run("input x\nweight w\ny = conv2d[" + c.attrs + d +
                              "](x, w)\noutput y",
                          {{"x", x}, {"w", w}});
    const std::string plain =
        c.attrs.empty() ? ""
                        : "[" + c.attrs.substr(0, c.attrs.size() - 1) + "]";
    const T dense =
        run("input x\nweight w\ny = conv2d" + plain + "(x, w)\noutput y",
            {{"x", x}, {"w", spread}});
    SCOPED_TRACE(c.attrs + d);
    expect_values(dilated, dense.shape, dense.data);
  }
}

TEST(FloatEval, Conv2DDilationIsRefusedOutsideOneTo2To31) {
  for (const char *d : {"0,1", "1,-2", "1,4294967296"})
    EXPECT_THROW(parse_graph("input x: [1,1,5,5]\nweight w: [1,1,3,3]\n"
                             "y = conv2d[d=" +
                             std::string(d) + "](x, w)\noutput y"),
                 Error)
        << d;
}

TEST(FloatEval, LayerNormNormalizesEachRow) {
  // Rows of 4 (axis 1 of [2,4]): mean 2.5 and variance 1.25 for 1..4;
  // scale and bias per element.
  T x({2, 4}, {1, 2, 3, 4, 2, 2, 2, 2});
  T s({4}, {1, 2, 1, 1}), b({4}, {0, 0, 0, 10});
  const float d = 1.0f / std::sqrt(1.25f + 1e-5f);
  expect_values(
      run("input x\nweight s\nweight b\ny = layer_norm(x, s, b)\noutput y",
          {{"x", x}, {"s", s}, {"b", b}}),
      {2, 4}, {-1.5f * d, -0.5f * 2 * d, 0.5f * d, 1.5f * d + 10, 0, 0, 0, 10});
  // Over axes 0 and 1 of [2,2] (one row of 4), scale of shape [2,2].
  T q({2, 2}, {1, 2, 3, 4}), one({2, 2}, {1, 1, 1, 1});
  expect_values(run("input x\nweight s\ny = layer_norm[axis=0 eps=0](x, s)\n"
                    "output y",
                    {{"x", q}, {"s", one}}),
                {2, 2},
                {-1.5f / std::sqrt(1.25f), -0.5f / std::sqrt(1.25f),
                 0.5f / std::sqrt(1.25f), 1.5f / std::sqrt(1.25f)});
  EXPECT_THROW(parse_graph("input x: [2,4]\nweight s: [3]\n"
                           "y = layer_norm(x, s)\noutput y"),
               Error);
}

TEST(FloatEval, Pooling) {
  T x({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  // Average divides by the full window (9), padding included.
  expect_values(run("input x\ny = pool2d_avg[k=3,3](x)\noutput y", {{"x", x}}),
                {1, 1, 3, 3},
                {12 / 9.f, 21 / 9.f, 16 / 9.f, 27 / 9.f, 5, 33 / 9.f, 24 / 9.f,
                 39 / 9.f, 28 / 9.f});
  expect_values(run("input x\ny = pool2d_max[k=2,2 s=1,1 pad=valid](x)\n"
                    "output y",
                    {{"x", x}}),
                {1, 1, 2, 2}, {5, 6, 8, 9});
}

TEST(FloatEval, UnaryAndElementwise) {
  T a({3}, {-1, 0, 2}), b({3}, {4, 5, 6});
  expect_values(run("input a\ny = relu(a)\noutput y", {{"a", a}}), {3},
                {0, 0, 2});
  expect_values(run("input a\ny = sigmoid(a)\noutput y", {{"a", a}}), {3},
                {1 / (1 + std::exp(1.f)), 0.5f, 1 / (1 + std::exp(-2.f))});
  expect_values(run("input a\ny = tanh(a)\noutput y", {{"a", a}}), {3},
                {std::tanh(-1.f), 0, std::tanh(2.f)});
  expect_values(
      run("input a\ninput b\ny = ewadd(a, b)\noutput y", {{"a", a}, {"b", b}}),
      {3}, {3, 5, 8});
  expect_values(
      run("input a\ninput b\ny = ewmul(a, b)\noutput y", {{"a", a}, {"b", b}}),
      {3}, {-4, 0, 12});
  expect_values(run("input a\ninput s\ny = scalar_mul(a, s)\noutput y",
                    {{"a", a}, {"s", T({}, 3.0f)}}),
                {3}, {-3, 0, 6});
}

TEST(FloatEval, ConcatSplitTranspose) {
  T a({2, 1}, {1, 2}), b({2, 2}, {3, 4, 5, 6});
  expect_values(run("input a\ninput b\ny = concat[axis=1](a, b)\noutput y",
                    {{"a", a}, {"b", b}}),
                {2, 3}, {1, 3, 4, 2, 5, 6});
  expect_values(run("input a\ninput b\ny = concat[axis=0](b, b)\noutput y",
                    {{"a", a}, {"b", b}}),
                {4, 2}, {3, 4, 5, 6, 3, 4, 5, 6});
  T m({2, 3}, {1, 2, 3, 4, 5, 6});
  expect_values(
      run("input m\np, q = split[axis=1 sizes=1,2](m)\noutput q", {{"m", m}}),
      {2, 2}, {2, 3, 5, 6});
  expect_values(run("input m\ny = transpose(m)\noutput y", {{"m", m}}), {3, 2},
                {1, 4, 2, 5, 3, 6});
  T c({1, 2, 3}, {1, 2, 3, 4, 5, 6});
  expect_values(
      run("input c\ny = transpose[perm=2,0,1](c)\noutput y", {{"c", c}}),
      {3, 1, 2}, {1, 4, 2, 5, 3, 6});
}

TEST(FloatEval, EnlargeAndConstants) {
  T w({1, 1, 1, 1}, 7.0f);
  expect_values(run("weight w\ny = enlarge[k=3,3](w)\noutput y", {{"w", w}}),
                {1, 1, 3, 3}, {0, 0, 0, 0, 7, 0, 0, 0, 0});
  expect_values(run("y = const_imm[shape=2,2]()\noutput y", {}), {2, 2},
                {1, 0, 0, 1});
  expect_values(run("y = const_one[shape=3]()\noutput y", {}), {3}, {1, 1, 1});
  expect_values(run("y = const_pool[k=1,2 shape=2,1,1,2]()\noutput y", {}),
                {2, 1, 1, 2}, {.5f, .5f, .5f, .5f});
  expect_values(run("y = const_iconv[k=1,3 shape=2,2,1,3]()\noutput y", {}),
                {2, 2, 1, 3}, {0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0});
}

TEST(FloatEval, BatchNormAndReshape) {
  T x({1, 2, 1, 2}, {1, 2, 3, 4});
  T scale({2}, {2, 1}), bias({2}, {0, 1}), mean({2}, {1, 0}), var({2}, {4, 1});
  expect_values(
      run("input x\nweight s\nweight b\nweight m\nweight v\n"
          "y = batchnorm[eps=0](x, s, b, m, v)\noutput y",
          {{"x", x}, {"s", scale}, {"b", bias}, {"m", mean}, {"v", var}}),
      {1, 2, 1, 2}, {0, 1, 4, 5}); // (x-1)/2*2, x/1*1+1
  expect_values(run("input x\ny = reshape[shape=4](x)\noutput y", {{"x", x}}),
                {4}, {1, 2, 3, 4});
}

TEST(FloatEval, OutputsThatAreVariablesOrRepeated) {
  // A variable is read where it is bound and copied out; a computed value
  // named twice as an output is given twice, whole.
  const Bindings<float> x{{"x", T({2}, {-1, 2})}};
  const Graph g = parse_graph(
      "input x\ny = relu(x)\noutput x\noutput y\noutput y\noutput x");
  const auto out = evaluate(FloatDomain{}, g, x);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].data, (std::vector<float>{-1, 2}));
  EXPECT_EQ(out[1].data, (std::vector<float>{0, 2}));
  EXPECT_EQ(out[2].data, (std::vector<float>{0, 2}));
  EXPECT_EQ(out[3].data, (std::vector<float>{-1, 2}));
  EXPECT_EQ(x.at("x").data, (std::vector<float>{-1, 2}));
}

TEST(FloatEval, MissingBindingAndShapeMismatch) {
  EXPECT_THROW(run("input a\ny = relu(a)\noutput y", {}), Error);
  EXPECT_THROW(
      run("input a: [2]\ny = relu(a)\noutput y", {{"a", T({3}, {1, 2, 3})}}),
      Error);
  EXPECT_THROW(run("y = const_one()\noutput y", {}), Error);
}

} // namespace
} // namespace quarry
