//===- onnx_quantized_test.cc - QDQ models against ONNX's definitions -----===//
#include "onnx_builder.h"

#include "quarry/core/evaluate.h"
#include "quarry/core/float_domain.h"
#include "quarry/core/weights.h"
#include "quarry/models/onnx.h"

#include "quarry/testing/error_of.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace quarry {
namespace {

using namespace quarry::testing;
using TP = onnx::TensorProto;

void integers(OnnxModel &m, const std::string &name, int32_t elem,
              const Ints &shape, const std::vector<int> &v) {
  auto *t = m.proto().mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(elem);
  for (int64_t d : shape)
    t->add_dims(d);
  for (int x : v)
    t->add_int32_data(x);
}

Tensor<float> run(const Model &g, Bindings<float> &b) {
  b = bind_variables(g.graph, g.weights, 3);
  return evaluate(FloatDomain{}, g.graph, b).at(0);
}

TEST(OnnxQuantized, QuantizeThenDequantizeRoundsAndSaturates) {
  // x / 0.005 spans [-200, 200): with zero point 128 the uint8 range cuts
  // both ends.
  OnnxModel m(13);
  m.input("x", {4, 8}).output("y").floats("s", {}, {0.005f});
  integers(m, "zp", TP::UINT8, {}, {128});
  m.node("QuantizeLinear", {"x", "s", "zp"}, {"q"});
  m.node("DequantizeLinear", {"q", "s", "zp"}, {"y"});
  const Model g = import_onnx_bytes(m.bytes(), "qdq.onnx");
  EXPECT_TRUE(kept_operator_types(g).empty());
  Bindings<float> b;
  const Tensor<float> y = run(g, b);
  const Tensor<float> &x = b.at("x");
  int saturated = 0;
  for (int64_t i = 0; i < x.numel(); ++i) {
    const float q =
        std::clamp(std::nearbyint(x[i] / 0.005f) + 128.0f, 0.0f, 255.0f);
    saturated += q == 0 || q == 255;
    EXPECT_EQ(y[i], (q - 128.0f) * 0.005f) << i;
  }
  EXPECT_GT(saturated, 0);
}

TEST(OnnxQuantized, PerChannelWeightsFoldToFloats) {
  // int8 weights, a scale per output channel: a constant, folded.
  OnnxModel m(13);
  m.input("x", {1, 2, 3, 3}).output("y");
  integers(m, "wq", TP::INT8, {2, 2, 1, 1}, {10, -20, 127, -128});
  m.floats("ws", {2}, {0.5f, 0.25f});
  integers(m, "wz", TP::INT8, {2}, {0, 1});
  set_int(m.node("DequantizeLinear", {"wq", "ws", "wz"}, {"w"}), "axis", 0);
  m.node("Conv", {"x", "w"}, {"y"});
  const Model g = import_onnx_bytes(m.bytes(), "w8.onnx");
  int ops = 0;
  for (const Node &n : g.graph.nodes())
    ops += !n.is_variable();
  EXPECT_EQ(ops, 1); // the convolution alone
  Bindings<float> b;
  const Tensor<float> y = run(g, b);
  const Tensor<float> &x = b.at("x");
  const float w[2][2] = {{10 * 0.5f, -20 * 0.5f},
                         {(127 - 1) * 0.25f, (-128 - 1) * 0.25f}};
  for (int o = 0; o < 2; ++o)
    for (int p = 0; p < 9; ++p)
      EXPECT_NEAR(y[o * 9 + p], w[o][0] * x[p] + w[o][1] * x[9 + p], 1e-5);
}

TEST(OnnxQuantized, AQuantizedOutputGoesOutInItsType) {
  OnnxModel m(13);
  m.input("x", {6}).output("q").floats("s", {}, {0.01f});
  integers(m, "zp", TP::INT8, {}, {-3});
  m.proto()
      .mutable_graph()
      ->mutable_output(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->set_elem_type(TP::INT8);
  m.node("QuantizeLinear", {"x", "s", "zp"}, {"q"});
  const std::string bytes = m.bytes();
  const Model g = import_onnx_bytes(bytes, "q.onnx");
  EXPECT_EQ(interface_differences(bytes, export_onnx_bytes(g)),
            std::vector<std::string>{});
}

/// y = conv(x, w) with x quantized as the model runs (uint8), the int8
/// kernel w of scale 0.01, the int32 sums cast to float32 and scaled.
void dynamically_quantized_conv(OnnxModel &m) {
  m.floats("ws", {}, {0.01f});
  m.node("DynamicQuantizeLinear", {"x"}, {"xq", "xs", "xz"});
  m.node("ConvInteger", {"xq", "w", "xz"}, {"acc"});
  set_int(m.node("Cast", {"acc"}, {"accf"}), "to", TP::FLOAT);
  m.node("Mul", {"xs", "ws"}, {"s"});
  m.node("Mul", {"accf", "s"}, {"y"});
}

TEST(OnnxQuantized, DynamicQuantizationApproximatesTheFloatProduct) {
  // x quantized at run time to uint8, an int8 kernel, ConvInteger, the
  // int32 sum cast and scaled back: within a quantization step of the
  // float convolution.
  OnnxModel m(13);
  m.input("x", {1, 2, 4, 4}).output("y");
  integers(m, "w", TP::INT8, {3, 2, 1, 1}, {50, -100, 127, 0, -128, 25});
  dynamically_quantized_conv(m);
  const Model g = import_onnx_bytes(m.bytes(), "dyn.onnx");
  EXPECT_TRUE(kept_operator_types(g).empty());
  Bindings<float> b;
  const Tensor<float> y = run(g, b);
  const Tensor<float> &x = b.at("x");
  const float w[3][2] = {{0.5f, -1.0f}, {1.27f, 0.0f}, {-1.28f, 0.25f}};
  for (int o = 0; o < 3; ++o)
    for (int p = 0; p < 16; ++p) {
      const float want = w[o][0] * x[p] + w[o][1] * x[16 + p];
      // x's step is at most 2/255; each of two taps errs by half of it.
      EXPECT_NEAR(y[o * 16 + p], want, 1.3f * (2.0f / 255)) << o << " " << p;
    }
}

/// One quantized convolution with an int32 bias, as QLinearConv or in its
/// QDQ form.
OnnxModel quantized_conv(bool qlinear) {
  OnnxModel m(13);
  m.input("x", {1, 2, 4, 4}).output("y");
  m.floats("xs", {}, {0.01f}).floats("ws", {3}, {0.02f, 0.01f, 0.03f});
  m.floats("ys", {}, {0.05f});
  integers(m, "xz", TP::UINT8, {}, {128});
  integers(m, "wz", TP::INT8, {3}, {0, 0, 0});
  integers(m, "yz", TP::UINT8, {}, {10});
  integers(m, "w", TP::INT8, {3, 2, 1, 1}, {50, -100, 127, 0, -128, 25});
  integers(m, "b", TP::INT32, {3}, {1000, -2000, 300});
  m.node("QuantizeLinear", {"x", "xs", "xz"}, {"xq"});
  if (qlinear) {
    m.node("QLinearConv", {"xq", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"},
           {"yq"});
  } else {
    m.floats("bs", {3}, {0.01f * 0.02f, 0.01f * 0.01f, 0.01f * 0.03f});
    integers(m, "bz", TP::INT32, {3}, {0, 0, 0});
    m.node("DequantizeLinear", {"xq", "xs", "xz"}, {"xd"});
    set_int(m.node("DequantizeLinear", {"w", "ws", "wz"}, {"wd"}), "axis", 0);
    set_int(m.node("DequantizeLinear", {"b", "bs", "bz"}, {"bd"}), "axis", 0);
    m.node("Conv", {"xd", "wd", "bd"}, {"c"});
    m.node("QuantizeLinear", {"c", "ys", "yz"}, {"yq"});
  }
  m.node("DequantizeLinear", {"yq", "ys", "yz"}, {"y"});
  return m;
}

TEST(OnnxQuantized, QLinearConvIsItsQdqForm) {
  Bindings<float> b;
  const Tensor<float> a =
      run(import_onnx_bytes(quantized_conv(true).bytes(), "qconv.onnx"), b);
  const Tensor<float> q =
      run(import_onnx_bytes(quantized_conv(false).bytes(), "qdq.onnx"), b);
  EXPECT_EQ(a.data, q.data);
}

/// The operators of `bytes`' graph, counted, and its initializers' types.
struct Contents {
  std::map<std::string, int> ops;
  std::map<std::string, int32_t> initializers;
};
Contents contents(const std::string &bytes) {
  onnx::ModelProto m;
  EXPECT_TRUE(m.ParseFromString(bytes));
  Contents c;
  for (const auto &n : m.graph().node())
    ++c.ops[n.op_type()];
  for (const auto &t : m.graph().initializer())
    c.initializers[t.name()] = t.data_type();
  return c;
}

/// `out`, imported again, computes what `g` computes.
void computes_the_same(const Model &g, const std::string &out) {
  Bindings<float> b;
  const Tensor<float> want = run(g, b);
  EXPECT_EQ(run(import_onnx_bytes(out, "out.onnx"), b).data, want.data);
}

TEST(OnnxQuantized, AQdqModelGoesOutQuantized) {
  // Its Quantize and DequantizeLinears as the model wrote them, the
  // weight and bias in int8 and int32 and dequantized as it wrote them,
  // though import folded them to float32.
  const std::string bytes = quantized_conv(false).bytes();
  const Model g = import_onnx_bytes(bytes, "qdq.onnx");
  const std::string out = export_onnx_bytes(g);
  EXPECT_EQ(contents(out).ops, contents(bytes).ops);
  EXPECT_EQ(contents(out).initializers, contents(bytes).initializers);
  EXPECT_EQ(interface_differences(bytes, out), std::vector<std::string>{});
  computes_the_same(g, out);
}

TEST(OnnxQuantized, AWeightThatChangedGoesOutAsFloat32) {
  // The folded weight given other values (as a rewrite that keeps its name
  // would): the DequantizeLinear that made it no longer computes them.
  Model g = import_onnx_bytes(quantized_conv(false).bytes(), "qdq.onnx");
  bool changed = false;
  for (auto &[name, value] : g.weights)
    if (value.shape == Shape{3, 2, 1, 1}) {
      value.data[0] += 1;
      changed = true;
    }
  ASSERT_TRUE(changed);
  const std::string out = export_onnx_bytes(g);
  const Contents c = contents(out);
  EXPECT_EQ(c.ops.at("DequantizeLinear"), 3);
  EXPECT_EQ(c.initializers.count("w"), 0u);
  computes_the_same(g, out);
}

TEST(OnnxQuantized, ARewrittenConvolutionReadsItsDequantizedWeights) {
  // The convolution computed anew, as a rewrite does (without the name
  // import gave it): it goes out in quarry's forms (and so does the
  // QuantizeLinear reading it), before the weights it reads in the graph's
  // order, and they go out dequantized all the same.
  Model g = import_onnx_bytes(quantized_conv(false).bytes(), "qdq.onnx");
  int renamed = 0;
  for (int32_t id = 0; id < g.graph.num_nodes(); ++id)
    if (g.graph.node(id).name == "c") {
      g.graph.set_name(id, "");
      ++renamed;
    }
  ASSERT_EQ(renamed, 1);
  const std::string out = export_onnx_bytes(g);
  onnx::ModelProto written;
  ASSERT_TRUE(written.ParseFromString(out));
  std::map<std::string, std::string> dequantized; // input -> output
  for (const auto &n : written.graph().node())
    if (n.op_type() == "DequantizeLinear")
      dequantized[n.input(0)] = n.output(0);
  EXPECT_EQ(dequantized.count("w"), 1u);
  EXPECT_EQ(dequantized.count("b"), 1u);
  const Contents c = contents(out);
  EXPECT_EQ(c.initializers.at("w"), TP::INT8);
  EXPECT_EQ(c.initializers.at("b"), TP::INT32);
  computes_the_same(g, out);
}

TEST(OnnxQuantized, ADynamicallyQuantizedModelGoesOutAsItCame) {
  // DynamicQuantizeLinear, ConvInteger of int8 weights and the int32 sums
  // cast to float32: each node as the model wrote it, and the weights (of
  // more values than a record keeps of other types) as they were.
  OnnxModel m(13);
  m.input("x", {1, 8, 6, 6}).output("y");
  auto *w = m.proto().mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(TP::INT8);
  for (int64_t d : {64, 8, 3, 3})
    w->add_dims(d);
  std::string raw(64 * 8 * 3 * 3, '\0');
  for (size_t i = 0; i < raw.size(); ++i)
    raw[i] = static_cast<char>(static_cast<int>(i * 37 % 255) - 127);
  w->set_raw_data(raw);
  dynamically_quantized_conv(m);
  const std::string bytes = m.bytes();
  const Model g = import_onnx_bytes(bytes, "dyn.onnx");
  const std::string out = export_onnx_bytes(g);
  EXPECT_EQ(contents(out).ops, contents(bytes).ops);
  EXPECT_EQ(contents(out).initializers, contents(bytes).initializers);
  onnx::ModelProto written;
  ASSERT_TRUE(written.ParseFromString(out));
  for (const auto &t : written.graph().initializer()) {
    if (t.name() == "w") {
      EXPECT_EQ(t.SerializeAsString(), w->SerializeAsString());
    }
  }
  computes_the_same(g, out);
}

TEST(OnnxQuantized, ACastToAnIntegerTruncatesTowardZero) {
  OnnxModel m(13);
  m.input("x", {4}).output("y");
  set_int(m.node("Cast", {"x"}, {"q"}), "to", TP::INT8);
  set_int(m.node("Cast", {"q"}, {"y"}), "to", TP::FLOAT);
  const Model g = import_onnx_bytes(m.bytes(), "cast.onnx");
  EXPECT_TRUE(kept_operator_types(g).empty());
  Bindings<float> b = bind_variables(g.graph, g.weights, 1);
  b.at("x") = Tensor<float>(Shape{4}, {-2.7f, -0.5f, 0.9f, 3.2f});
  EXPECT_EQ(evaluate(FloatDomain{}, g.graph, b).at(0).data,
            (std::vector<float>{-2, 0, 0, 3}));
}

TEST(OnnxQuantized, InvalidParametersAreRefusedNamingTheNode) {
  // A scale of zero to divide by: no valid model has it.
  {
    OnnxModel m(13);
    m.input("x", {6}).output("y").floats("s", {}, {0.0f});
    m.node("QuantizeLinear", {"x", "s"}, {"q"});
    m.node("DequantizeLinear", {"q", "s"}, {"y"});
    EXPECT_EQ(error_of([&] { import_onnx_bytes(m.bytes(), "z.onnx"); }),
              "z.onnx: node 'QuantizeLinear_q' (QuantizeLinear): input 1 is a "
              "scale of 0.000000, which it divides by (scales are positive "
              "and finite)");
  }
  // A zero point of another type than the data it shifts.
  {
    OnnxModel m(13);
    m.input("q", {4}, onnx::TensorProto::UINT8).output("y");
    m.floats("s", {}, {0.5f});
    m.ints("zp", {}, {3});
    m.proto().mutable_graph()->mutable_initializer(1)->set_data_type(
        onnx::TensorProto::INT8);
    m.proto().mutable_graph()->mutable_initializer(1)->clear_int64_data();
    m.proto().mutable_graph()->mutable_initializer(1)->add_int32_data(3);
    m.node("DequantizeLinear", {"q", "s", "zp"}, {"y"});
    EXPECT_EQ(error_of([&] { import_onnx_bytes(m.bytes(), "t.onnx"); }),
              "t.onnx: node 'DequantizeLinear_y' (DequantizeLinear): its zero "
              "point (input 2) is INT8 but input 0 is UINT8 (they must be of "
              "one type)");
  }
  // A float zero point.
  {
    OnnxModel m(13);
    m.input("q", {4}, onnx::TensorProto::UINT8).output("y");
    m.floats("s", {}, {0.5f}).floats("zp", {}, {1.0f});
    m.node("DequantizeLinear", {"q", "s", "zp"}, {"y"});
    EXPECT_EQ(error_of([&] { import_onnx_bytes(m.bytes(), "f.onnx"); }),
              "f.onnx: node 'DequantizeLinear_y' (DequantizeLinear): its zero "
              "point (input 2) is of element type FLOAT, not an integer type");
  }
}

} // namespace
} // namespace quarry
