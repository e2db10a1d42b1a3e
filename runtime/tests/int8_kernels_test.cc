//===- int8_kernels_test.cc - Kernels of a QDQ pair's result in int8 ------===//
#include "cases.h"
#include "composites.h"
#include "quarry/runtime/cpu_backend.h"
#include "quarry/runtime/plan.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace quarry::runtime::testing {
namespace {

/// x quantized by scale s and zero point z, clamped to [lo, hi]: the
/// integers q, as ONNX's import writes a QuantizeLinear.
const std::string kQuantize =
    "q = broadcast[fn=min](broadcast[fn=max](broadcast[fn=add]("
    "pointwise[fn=round](broadcast[fn=div](x, s)), z), lo), hi)\n";

/// A graph of x quantized and dequantized (scale s, zero point z, clamped
/// to [lo, hi]) and then convolved by w, its epilogue a bias and a relu.
std::string qdq_conv(const std::string &conv_attrs, int64_t groups = 1,
                     int64_t channels = 8) {
  return "input x: [1," + std::to_string(channels) +
         ",9,9]\nweight s: []\nweight z: []\nweight lo: []\n"
         "weight hi: []\nweight w: [16," +
         std::to_string(channels / groups) + ",3,3]\nweight b: [1,16,1,1]\n" +
         kQuantize +
         "d = broadcast[fn=mul](broadcast[fn=sub](q, z), s)\n"
         "y = relu(broadcast[fn=add](conv2d[" +
         conv_attrs + "](d, w), b))\noutput y\n";
}

/// Values for qdq_conv's graph: grid_values, and weights integers in
/// [-127, 127] (each channel's largest 127) times a scale per channel,
/// unless `on_grid` is false.
/// x in [-4, 4) and the grid's scale 1/32, zero point `zero` over [lo,
/// hi], beside random values of the graph's other variables.
Bindings<float> grid_values(const Graph &g, float zero, float lo, float hi) {
  Bindings<float> v = random_run_bindings(g, 5);
  auto &x = v.at("x");
  for (int64_t i = 0; i < x.numel(); ++i)
    x[i] = 8.0f * static_cast<float>(i % 97) / 97.0f - 4.0f;
  v.insert_or_assign("s", Tensor<float>(Shape{}, 1.0f / 32));
  v.insert_or_assign("z", Tensor<float>(Shape{}, zero));
  v.insert_or_assign("lo", Tensor<float>(Shape{}, lo));
  v.insert_or_assign("hi", Tensor<float>(Shape{}, hi));
  return v;
}

Bindings<float> qdq_values(const Graph &g, float zero, float lo, float hi,
                           bool on_grid = true) {
  Bindings<float> v = grid_values(g, zero, lo, hi);
  auto &w = v.at("w");
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> q(-127, 127);
  const int64_t co = w.shape[0], per_co = w.numel() / co;
  for (int64_t o = 0; o < co; ++o) {
    const float scale = 0.001f * static_cast<float>(o + 1);
    for (int64_t i = 0; i < per_co; ++i)
      w[o * per_co + i] =
          static_cast<float>(i == 0 ? (o % 2 ? 127 : -127) : q(rng)) * scale;
    if (!on_grid)
      w[o * per_co + 1] += scale / 3;
  }
  return v;
}

/// The implementation of the step that runs the convolution (`op`
/// conv2d) or product (matmul).
std::string conv_impl(Executable &e, const std::string &op = "conv2d") {
  for (const StepInfo &s : e.steps())
    if (s.label.find("(" + op + ")") != std::string::npos)
      return s.impl;
  return "";
}

TEST(QuantizationGrid, IsFoundOnAQdqPairsResultAlone) {
  const Graph g = parse_graph(qdq_conv("s=1,1 pad=same"));
  const Bindings<float> v = qdq_values(g, 0, 0, 255);
  const Plan p = make_plan(g, v, "cpu", [](OpKind) { return true; });
  const auto d = std::find_if(g.nodes().begin(), g.nodes().end(),
                              [](const Node &n) { return n.name == "d"; });
  ASSERT_NE(d, g.nodes().end());
  const auto grid =
      quantization_grid(g, p, {static_cast<int32_t>(d - g.nodes().begin()), 0});
  ASSERT_TRUE(grid);
  EXPECT_EQ(grid->scale, 1.0f / 32);
  EXPECT_EQ(grid->zero, 0.0f);
  EXPECT_EQ(grid->lo, 0.0f);
  EXPECT_EQ(grid->hi, 255.0f);
  // The clamped integers themselves, before the dequantization, are the
  // integers of a grid of scale 1; the input is on none.
  for (const Node &n : g.nodes()) {
    const int32_t id = static_cast<int32_t>(&n - g.nodes().data());
    if (n.name == "q") {
      const auto integers = quantization_grid(g, p, {id, 0});
      ASSERT_TRUE(integers);
      EXPECT_EQ(integers->scale, 1.0f);
      EXPECT_EQ(integers->zero, 0.0f);
      EXPECT_EQ(integers->hi, 255.0f);
    }
    if (n.name == "x") {
      EXPECT_FALSE(quantization_grid(g, p, {id, 0}));
    }
  }
}

TEST(QuantizationGrid, IsNotFoundWhereThePairsScalesOrZerosDiffer) {
  // Dequantized by another scale (or zero point) than it was quantized
  // with, the values are no integers of either grid.
  // The first, dequantized as quantized, is on its grid.
  for (const char *dequantize :
       {"d = broadcast[fn=mul](broadcast[fn=sub](q, z), s)\n",
        "d = broadcast[fn=mul](broadcast[fn=sub](q, z), t)\n",
        "d = broadcast[fn=mul](broadcast[fn=sub](q, t), s)\n"}) {
    const Graph g = parse_graph(
        "input x: [1,8,9,9]\nweight s: []\nweight t: []\nweight z: []\n"
        "weight lo: []\nweight hi: []\n" +
        kQuantize + std::string(dequantize) + "output d\n");
    Bindings<float> v = random_run_bindings(g, 5);
    v.insert_or_assign("s", Tensor<float>(Shape{}, 0.25f));
    v.insert_or_assign("t", Tensor<float>(Shape{}, 0.5f));
    v.insert_or_assign("z", Tensor<float>(Shape{}, 0.0f));
    v.insert_or_assign("lo", Tensor<float>(Shape{}, 0.0f));
    v.insert_or_assign("hi", Tensor<float>(Shape{}, 255.0f));
    const Plan p = make_plan(g, v, "cpu", [](OpKind) { return true; });
    EXPECT_EQ(quantization_grid(g, p, g.outputs().at(0)).has_value(),
              std::string(dequantize).find(", s)") != std::string::npos &&
                  std::string(dequantize).find("q, z") != std::string::npos)
        << dequantize;
  }
}

TEST(CpuInt8Conv, RunsInInt8AndEqualsTheReference) {
  struct Form {
    const char *attrs;
    int64_t groups;
    float zero, lo, hi; // u8 from zero 0, s8 from the middle of [0, 255]
  };
  const Form forms[] = {{"s=1,1 pad=same", 1, 0, 0, 255},
                        {"s=2,2 pad=same", 1, 128, 0, 255},
                        {"s=1,1 pad=valid", 2, 0, 0, 255},
                        {"s=1,1 pad=same", 1, 0, -128, 127}};
  for (const Form &f : forms) {
    SCOPED_TRACE(f.attrs + std::string(" zero ") + std::to_string(f.zero));
    const Graph g = parse_graph(qdq_conv(f.attrs, f.groups));
    const Bindings<float> v = qdq_values(g, f.zero, f.lo, f.hi);
    auto e = make_cpu_backend()->prepare(g, v);
    EXPECT_EQ(conv_impl(*e).rfind("int8 ", 0), 0u) << conv_impl(*e);
    EXPECT_LE(error_against_reference(*e, g, v), kTolerance);
  }
}

TEST(CpuInt8Conv, AZeroPointOfNeitherRangeIsOneDnnsToApply) {
  // Zero point 3: q - 3 fits neither u8 nor s8, so q is held and oneDNN
  // is given the zero point, padding included.
  const Graph g = parse_graph(qdq_conv("s=1,1 pad=same"));
  const Bindings<float> v = qdq_values(g, 3.0f, 0, 255);
  auto e = make_cpu_backend()->prepare(g, v);
  EXPECT_EQ(conv_impl(*e).rfind("int8 ", 0), 0u) << conv_impl(*e);
  EXPECT_LE(error_against_reference(*e, g, v), kTolerance);
}

/// ConvInteger's form over `channels` input channels: the integers of a
/// computed quantization (scale s and zero point z: graph inputs) less
/// their zero point, by integer weights w.
Graph conv_integer(int64_t channels) {
  const std::string c = std::to_string(channels);
  return parse_graph("input x: [1," + c +
                     ",9,9]\ninput s: []\ninput z: []\nweight lo: []\n"
                     "weight hi: []\nweight w: [16," +
                     c + ",3,3]\n" + kQuantize +
                     "y = conv2d[s=1,1 pad=same](broadcast[fn=sub](q, z), "
                     "w)\noutput y\n");
}

TEST(CpuInt8Conv, ConvIntegersOperandWithAComputedZeroPoint) {
  // ConvInteger's form: the integers of a DynamicQuantizeLinear (its scale
  // and zero point computed: graph inputs here) less their zero point, by
  // integer weights. oneDNN is given the zero point as the step runs; the
  // sums are exact.
  const Graph g = conv_integer(8);
  for (const float zero : {0.0f, 37.0f, 131.0f}) {
    Bindings<float> v = grid_values(g, zero, 0, 255);
    auto &w = v.at("w");
    for (int64_t i = 0; i < w.numel(); ++i)
      w[i] = static_cast<float>((i * 37) % 255 - 127);
    auto e = make_cpu_backend()->prepare(g, v);
    EXPECT_EQ(conv_impl(*e).rfind("int8 ", 0), 0u) << conv_impl(*e);
    EXPECT_EQ(error_against_reference(*e, g, v), 0.0) << zero;
    // Run again with another zero point: it is read as the step runs.
    v.insert_or_assign("z", Tensor<float>(Shape{}, zero + 5));
    const auto want = run_once(*make_reference_backend()->prepare(g, v), v);
    EXPECT_EQ(max_relative_error(run_once(*e, v), want), 0.0) << zero;
  }
}

TEST(CpuInt8Conv, WeightsOutsideS8RunInHalvesExactly) {
  // An asymmetric u8 quantizer's weights less their zero point: 255 steps
  // from -115 (one zero point for the tensor), or from -200 + 5 o (one
  // per channel o). Each is the sum of two s8 integers, and the sums stay
  // exact, over an image's 3 channels too.
  for (const int64_t channels : {16, 3})
    for (const bool per_channel : {false, true})
      for (const float zero : {0.0f, 131.0f}) {
        SCOPED_TRACE(
            (per_channel ? "per channel, zero " : "per tensor, zero ") +
            std::to_string(zero) + ", " + std::to_string(channels) +
            " channels");
        const Graph g = conv_integer(channels);
        Bindings<float> v = grid_values(g, zero, 0, 255);
        auto &w = v.at("w");
        const int64_t per_co = w.numel() / 16;
        for (int64_t i = 0; i < w.numel(); ++i) {
          const float from = per_channel ? -200.0f + 5.0f * (i / per_co) : -115;
          // Both ends of the range, and steps between.
          w[i] = from + static_cast<float>(i % per_co == 0   ? 0
                                           : i % per_co == 1 ? 255
                                                             : (i * 37) % 256);
        }
        auto e = make_cpu_backend()->prepare(g, v);
        EXPECT_EQ(conv_impl(*e).rfind("int8 in halves ", 0), 0u)
            << conv_impl(*e);
        EXPECT_EQ(error_against_reference(*e, g, v), 0.0);
        v.insert_or_assign("z", Tensor<float>(Shape{}, zero + 5));
        const auto want = run_once(*make_reference_backend()->prepare(g, v), v);
        EXPECT_EQ(max_relative_error(run_once(*e, v), want), 0.0);
      }
}

TEST(CpuInt8Conv, WeightsNoTwoS8IntegersSumToRunInFloat) {
  // 255 (a u8 weight of zero point 0) is no sum of two s8 integers.
  const Graph g = conv_integer(16);
  Bindings<float> v = grid_values(g, 0, 0, 255);
  auto &w = v.at("w");
  for (int64_t i = 0; i < w.numel(); ++i)
    w[i] = static_cast<float>((i * 37) % 256);
  auto e = make_cpu_backend()->prepare(g, v);
  EXPECT_EQ(conv_impl(*e).rfind("int8", 0), std::string::npos) << conv_impl(*e);
  EXPECT_LE(error_against_reference(*e, g, v), kTolerance);
}

TEST(CpuInt8Conv, AsymmetricWeightsRunInInt8) {
  // A uint8 quantizer's weights per channel, dequantized: (q - zero) times
  // the channel's scale, q over all of [0, 255]. Zero point 128 leaves
  // them in s8; others, over 16 input channels, in halves.
  for (const int64_t channels : {8, 16}) {
    SCOPED_TRACE(std::to_string(channels) + " channels");
    const Graph g = parse_graph(qdq_conv("s=1,1 pad=same", 1, channels));
    Bindings<float> v = qdq_values(g, 0, 0, 255);
    auto &w = v.at("w");
    const int64_t per_co = w.numel() / 16;
    for (int64_t o = 0; o < 16; ++o) {
      const float scale = 0.0013f * static_cast<float>(o + 1);
      const float zero = channels == 8 ? 128.0f : 90.0f + 3.0f * o;
      for (int64_t i = 0; i < per_co; ++i) {
        const int64_t q = i == 0 ? 0 : i == 1 ? 255 : (i * 37 + o) % 256;
        w[o * per_co + i] = (static_cast<float>(q) - zero) * scale;
      }
    }
    auto e = make_cpu_backend()->prepare(g, v);
    EXPECT_EQ(
        conv_impl(*e).rfind(channels == 8 ? "int8 " : "int8 in halves ", 0), 0u)
        << conv_impl(*e);
    EXPECT_LE(error_against_reference(*e, g, v), kTolerance);
    // A weight between two steps: no grid, and a float kernel.
    w[5] += 0.0013f / 3;
    auto f = make_cpu_backend()->prepare(g, v);
    EXPECT_EQ(conv_impl(*f).rfind("int8", 0), std::string::npos)
        << conv_impl(*f);
    EXPECT_LE(error_against_reference(*f, g, v), kTolerance);
  }
}

TEST(CpuInt8Conv, RunsInFloatWhereTheWeightsAreOffTheirGrid) {
  const Graph g = parse_graph(qdq_conv("s=1,1 pad=same"));
  const Bindings<float> v = qdq_values(g, 0.0f, 0, 255, false);
  auto e = make_cpu_backend()->prepare(g, v);
  EXPECT_EQ(conv_impl(*e).rfind("int8", 0), std::string::npos) << conv_impl(*e);
  EXPECT_LE(error_against_reference(*e, g, v), kTolerance);
}

TEST(CpuInt8MatMul, RunsInInt8AndEqualsTheReference) {
  // A product of a QDQ pair's result (reshaped to rows and back, as an N-D
  // product imports) by weights of one scale per column, then a bias and a
  // relu.
  const Graph g = parse_graph(
      "input x: [2,3,16]\nweight s: []\nweight z: []\nweight lo: []\n"
      "weight hi: []\nweight w: [16,24]\nweight b: [24]\n" +
      kQuantize +
      "d = reshape[shape=6,16](broadcast[fn=mul](broadcast[fn=sub](q, z), "
      "s))\n"
      "y = relu(broadcast[fn=add](reshape[shape=2,3,24](matmul(d, w)), "
      "b))\noutput y\n");
  for (const float zero : {0.0f, 128.0f}) {
    Bindings<float> v = grid_values(g, zero, 0, 255);
    auto &w = v.at("w");
    std::mt19937 rng(4);
    std::uniform_int_distribution<int> q(-127, 127);
    for (int64_t i = 0; i < 16; ++i)
      for (int64_t j = 0; j < 24; ++j)
        w[i * 24 + j] = static_cast<float>(i == j % 16 ? 127 : q(rng)) *
                        0.002f * static_cast<float>(j + 1);
    auto e = make_cpu_backend()->prepare(g, v);
    EXPECT_EQ(conv_impl(*e, "matmul").rfind("int8 ", 0), 0u)
        << conv_impl(*e, "matmul");
    EXPECT_LE(error_against_reference(*e, g, v), kTolerance) << zero;
    // Off their grid, the weights run as a float product.
    w[5] += 0.0007f;
    auto f = make_cpu_backend()->prepare(g, v);
    EXPECT_EQ(conv_impl(*f, "matmul").rfind("int8", 0), std::string::npos);
    EXPECT_LE(error_against_reference(*f, g, v), kTolerance) << zero;
  }
}

TEST(CpuInt8MatMul, WeightsOutsideS8RunInHalvesExactly) {
  // MatMulInteger's form: the integers of a computed quantization less
  // their zero point, by integer weights of 255 steps from -100.
  const Graph g = parse_graph(
      "input x: [6,16]\ninput s: []\ninput z: []\nweight lo: []\n"
      "weight hi: []\nweight w: [16,24]\n" +
      kQuantize + "y = matmul(broadcast[fn=sub](q, z), w)\noutput y\n");
  Bindings<float> v = grid_values(g, 37, 0, 255);
  auto &w = v.at("w");
  for (int64_t i = 0; i < w.numel(); ++i)
    w[i] = static_cast<float>(i == 0 ? 155 : (i * 37) % 256 - 100);
  auto e = make_cpu_backend()->prepare(g, v);
  EXPECT_EQ(conv_impl(*e, "matmul").rfind("int8 in halves ", 0), 0u)
      << conv_impl(*e, "matmul");
  EXPECT_EQ(error_against_reference(*e, g, v), 0.0);
}

} // namespace
} // namespace quarry::runtime::testing
