//===- onnx_recurrent_test.cc - RNN, GRU and LSTM unrolled ----------------===//
//
// ONNX's own cases (ctest's conformance runs) cover forward cells with the
// default activations. These cover the rest by hand-computed single steps
// (peepholes, GRU's linear_before_reset, initial states) and by relations
// between directions (reverse reads the sequence backwards, bidirectional
// stacks both).
//
//===----------------------------------------------------------------------===//
#include "onnx_builder.h"

#include "quarry/core/evaluate.h"
#include "quarry/core/float_domain.h"
#include "quarry/models/onnx.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace quarry {
namespace {

using namespace quarry::testing;
using Ints = std::vector<int64_t>;

float sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }

/// The model's outputs for input x (the other operands are initializers).
std::vector<Tensor<float>> run(const OnnxModel &m, const Tensor<float> &x) {
  const Model g = import_onnx_bytes(m.bytes(), "r.onnx");
  EXPECT_TRUE(kept_operator_types(g).empty());
  Bindings<float> b = g.weights;
  b.emplace("x", x);
  return evaluate(FloatDomain{}, g.graph, b);
}

std::vector<float> random_floats(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &f : v)
    f = d(gen);
  return v;
}

TEST(OnnxRecurrent, AnLstmStepWithPeepholesAndInitialStatesByHand) {
  // Hidden and input size 1, one step: every gate is a scalar.
  const float x = 0.5f, h0 = -0.3f, c0 = 0.8f;
  const std::vector<float> w = {0.1f, -0.2f, 0.3f, 0.4f}; // i, o, f, c
  const std::vector<float> r = {0.5f, 0.6f, -0.7f, 0.2f};
  const std::vector<float> b = {0.01f,  0.02f, 0.03f, 0.04f,
                                -0.05f, 0.06f, 0.07f, -0.08f};
  const std::vector<float> p = {0.9f, -0.4f, 0.25f}; // i, o, f
  OnnxModel m;
  m.input("x", {1, 1, 1}).output("y_h").output("y_c");
  m.floats("w", {1, 4, 1}, w).floats("r", {1, 4, 1}, r).floats("b", {1, 8}, b);
  m.floats("h0", {1, 1, 1}, {h0}).floats("c0", {1, 1, 1}, {c0});
  m.floats("p", {1, 3}, p);
  set_int(m.node("LSTM", {"x", "w", "r", "b", "", "h0", "c0", "p"},
                 {"", "y_h", "y_c"}),
          "hidden_size", 1);
  const auto y = run(m, Tensor<float>(Shape{1, 1, 1}, x));
  auto pre = [&](int k) { return x * w[k] + h0 * r[k] + b[k] + b[4 + k]; };
  const float i = sigmoid(pre(0) + p[0] * c0);
  const float f = sigmoid(pre(2) + p[2] * c0);
  const float c = f * c0 + i * std::tanh(pre(3));
  const float o = sigmoid(pre(1) + p[1] * c);
  ASSERT_EQ(y.size(), 2u);
  EXPECT_NEAR(y[0][0], o * std::tanh(c), 1e-6);
  EXPECT_NEAR(y[1][0], c, 1e-6);
}

TEST(OnnxRecurrent, AGruStepResetsBeforeOrAfterItsProductByHand) {
  const float x = 0.7f, h0 = 0.4f;
  const std::vector<float> w = {0.3f, -0.6f, 0.8f}; // z, r, h
  const std::vector<float> r = {-0.2f, 0.5f, 0.9f};
  const std::vector<float> b = {0.1f, 0.2f, -0.3f, 0.05f, -0.15f, 0.25f};
  for (int64_t linear_before_reset : {0, 1}) {
    OnnxModel m;
    m.input("x", {1, 1, 1}).output("y_h");
    m.floats("w", {1, 3, 1}, w).floats("r", {1, 3, 1}, r);
    m.floats("b", {1, 6}, b).floats("h0", {1, 1, 1}, {h0});
    auto &n = m.node("GRU", {"x", "w", "r", "b", "", "h0"}, {"", "y_h"});
    set_int(n, "hidden_size", 1);
    set_int(n, "linear_before_reset", linear_before_reset);
    const auto y = run(m, Tensor<float>(Shape{1, 1, 1}, x));
    const float z = sigmoid(x * w[0] + h0 * r[0] + b[0] + b[3]);
    const float rr = sigmoid(x * w[1] + h0 * r[1] + b[1] + b[4]);
    const float candidate =
        linear_before_reset
            ? std::tanh(x * w[2] + b[2] + rr * (h0 * r[2] + b[5]))
            : std::tanh(x * w[2] + b[2] + (rr * h0) * r[2] + b[5]);
    EXPECT_NEAR(y[0][0], (1 - z) * candidate + z * h0, 1e-6)
        << "linear_before_reset=" << linear_before_reset;
  }
}

/// A cell over x [seq, batch, input] with seeded weights for `directions`.
OnnxModel cell(const std::string &type, const std::string &direction,
               int64_t seq, int64_t batch, int64_t input, int64_t hidden,
               unsigned seed, int64_t first_direction = 0) {
  const int64_t g = type == "RNN" ? 1 : type == "GRU" ? 3 : 4;
  const int64_t dirs = direction == "bidirectional" ? 2 : 1;
  // Both directions' weights are drawn; a one-way cell takes one of them,
  // so that it can be compared with that half of a bidirectional one.
  const auto all_w = random_floats(2 * g * hidden * input, seed);
  const auto all_r = random_floats(2 * g * hidden * hidden, seed + 1);
  const auto all_b = random_floats(2 * 2 * g * hidden, seed + 2);
  auto part = [&](const std::vector<float> &all) {
    const size_t per = all.size() / 2;
    const size_t from = static_cast<size_t>(first_direction) * per;
    return std::vector<float>(all.begin() + from,
                              all.begin() + from + dirs * per);
  };
  OnnxModel m;
  m.input("x", {seq, batch, input}).output("y").output("y_h");
  m.floats("w", {dirs, g * hidden, input}, part(all_w));
  m.floats("r", {dirs, g * hidden, hidden}, part(all_r));
  m.floats("b", {dirs, 2 * g * hidden}, part(all_b));
  auto &n = m.node(type, {"x", "w", "r", "b"}, {"y", "y_h"});
  set_int(n, "hidden_size", hidden);
  set_string(n, "direction", direction);
  return m;
}

TEST(OnnxRecurrent, ReverseReadsTheSequenceBackwards) {
  const int64_t seq = 4, batch = 2, input = 3, hidden = 2;
  const Tensor<float> x(Shape{seq, batch, input},
                        random_floats(seq * batch * input, 7));
  Tensor<float> flipped = x;
  const int64_t row = batch * input;
  for (int64_t t = 0; t < seq; ++t)
    for (int64_t k = 0; k < row; ++k)
      flipped[t * row + k] = x[(seq - 1 - t) * row + k];
  for (const char *type : {"RNN", "GRU", "LSTM"}) {
    const auto back =
        run(cell(type, "reverse", seq, batch, input, hidden, 3), x);
    const auto fwd =
        run(cell(type, "forward", seq, batch, input, hidden, 3), flipped);
    const int64_t out = batch * hidden;
    for (int64_t t = 0; t < seq; ++t)
      for (int64_t k = 0; k < out; ++k)
        EXPECT_NEAR(back[0][t * out + k], fwd[0][(seq - 1 - t) * out + k], 1e-6)
            << type << " t=" << t;
    for (int64_t k = 0; k < out; ++k)
      EXPECT_NEAR(back[1][k], fwd[1][k], 1e-6) << type;
  }
}

TEST(OnnxRecurrent, BidirectionalStacksBothDirections) {
  const int64_t seq = 3, batch = 2, input = 2, hidden = 3;
  const Tensor<float> x(Shape{seq, batch, input},
                        random_floats(seq * batch * input, 11));
  for (const char *type : {"RNN", "GRU", "LSTM"}) {
    const auto both =
        run(cell(type, "bidirectional", seq, batch, input, hidden, 5), x);
    const auto fwd =
        run(cell(type, "forward", seq, batch, input, hidden, 5, 0), x);
    const auto back =
        run(cell(type, "reverse", seq, batch, input, hidden, 5, 1), x);
    ASSERT_EQ(both[0].shape, (Shape{seq, 2, batch, hidden})) << type;
    const int64_t out = batch * hidden;
    for (int64_t t = 0; t < seq; ++t)
      for (int64_t k = 0; k < out; ++k) {
        EXPECT_NEAR(both[0][(t * 2 + 0) * out + k], fwd[0][t * out + k], 1e-6)
            << type;
        EXPECT_NEAR(both[0][(t * 2 + 1) * out + k], back[0][t * out + k], 1e-6)
            << type;
      }
    for (int64_t k = 0; k < out; ++k) {
      EXPECT_NEAR(both[1][k], fwd[1][k], 1e-6) << type;
      EXPECT_NEAR(both[1][out + k], back[1][k], 1e-6) << type;
    }
  }
}

TEST(OnnxRecurrent, WhatIsNotUnrolledIsKeptAsItIs) {
  OnnxModel m = cell("LSTM", "forward", 2, 1, 2, 2, 1);
  set_float(*m.proto().mutable_graph()->mutable_node(0), "clip", 1.0f);
  const Model g = import_onnx_bytes(m.bytes(), "clip.onnx");
  EXPECT_EQ(kept_operator_types(g), std::vector<std::string>{"LSTM"});
}

} // namespace
} // namespace quarry
