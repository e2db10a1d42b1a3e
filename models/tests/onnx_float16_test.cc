//===- onnx_float16_test.cc - float16 and bfloat16 models -----------------===//
//
// quarry computes float16 and bfloat16 models in float32: their constants
// decode exactly, and export gives inputs, outputs and initializers their
// types back.
//
//===----------------------------------------------------------------------===//
#include "onnx_builder.h"

#include "quarry/core/evaluate.h"
#include "quarry/core/float_domain.h"
#include "quarry/core/weights.h"
#include "quarry/models/onnx.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>

namespace quarry {
namespace {

using namespace quarry::testing;
using TP = onnx::TensorProto;

/// float32 `v` as float16 bits, for values float16 holds exactly (the
/// tests' constants: small integers and halves).
uint16_t half_bits(float v) {
  if (v == 0)
    return 0;
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  const uint32_t sign = (b >> 16) & 0x8000;
  const int exponent = static_cast<int>((b >> 23) & 0xff) - 127 + 15;
  return static_cast<uint16_t>(sign | (exponent << 10) | ((b >> 13) & 0x3ff));
}

uint16_t bfloat_bits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return static_cast<uint16_t>(b >> 16);
}

/// An initializer of `elem` (FLOAT16 or BFLOAT16) holding `v`, raw or as
/// int32 bit patterns.
void half_initializer(OnnxModel &m, const std::string &name, int32_t elem,
                      const Ints &shape, const std::vector<float> &v,
                      bool raw) {
  auto *t = m.proto().mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(elem);
  for (int64_t d : shape)
    t->add_dims(d);
  std::string bytes;
  for (float x : v) {
    const uint16_t bits = elem == TP::FLOAT16 ? half_bits(x) : bfloat_bits(x);
    if (raw)
      bytes.append(reinterpret_cast<const char *>(&bits), sizeof bits);
    else
      t->add_int32_data(bits);
  }
  if (raw)
    t->set_raw_data(bytes);
}

void declare(onnx::ValueInfoProto *v, int32_t elem) {
  v->mutable_type()->mutable_tensor_type()->set_elem_type(elem);
}

/// y = relu(x W + b) in `elem`, with a Cast to float32 and back around
/// the bias (as mixed-precision exporters write), nodes out of order.
OnnxModel dense(int32_t elem, bool raw) {
  OnnxModel m(17);
  m.input("x", {2, 3}, elem).output("y");
  declare(m.proto().mutable_graph()->mutable_output(0), elem);
  half_initializer(m, "W", elem, {3, 2}, {1, -2, 0.5f, 3, -1, 2}, raw);
  half_initializer(m, "b", elem, {2}, {0.25f, -4}, raw);
  m.node("Relu", {"h"}, {"y"});
  set_int(m.node("Cast", {"s32"}, {"h"}), "to", elem);
  m.node("Add", {"p32", "b32"}, {"s32"});
  set_int(m.node("Cast", {"b"}, {"b32"}), "to", TP::FLOAT);
  set_int(m.node("Cast", {"p"}, {"p32"}), "to", TP::FLOAT);
  m.node("MatMul", {"x", "W"}, {"p"});
  return m;
}

TEST(OnnxFloat16, ComputesInFloat32AndKeepsItsTypes) {
  for (const int32_t elem : {TP::FLOAT16, TP::BFLOAT16})
    for (const bool raw : {true, false}) {
      SCOPED_TRACE(TP::DataType_Name(static_cast<TP::DataType>(elem)) +
                   (raw ? " raw" : " int32_data"));
      const std::string bytes = dense(elem, raw).bytes();
      const Model g = import_onnx_bytes(bytes, "half.onnx");
      const Bindings<float> b = bind_variables(g.graph, g.weights, 2);
      const Tensor<float> &x = b.at("x");
      const Tensor<float> y = evaluate(FloatDomain{}, g.graph, b).at(0);
      const float w[3][2] = {{1, -2}, {0.5f, 3}, {-1, 2}};
      const float bias[2] = {0.25f, -4};
      ASSERT_EQ(y.shape, (Shape{2, 2}));
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
          float s = bias[j];
          for (int k = 0; k < 3; ++k)
            s += x[i * 3 + k] * w[k][j];
          EXPECT_NEAR(y[i * 2 + j], std::max(0.0f, s), 1e-6);
        }
      // Out again: the input, the output and the initializers in `elem`.
      const std::string out = export_onnx_bytes(g);
      EXPECT_EQ(interface_differences(bytes, out), std::vector<std::string>{});
      onnx::ModelProto written;
      ASSERT_TRUE(written.ParseFromString(out));
      // W and b as they were, and the Cast of b to float32 that folded.
      std::map<int32_t, int> types;
      for (const auto &t : written.graph().initializer())
        ++types[t.data_type()];
      EXPECT_EQ(types, (std::map<int32_t, int>{{elem, 2}}));
      int casts_of_b = 0;
      for (const auto &n : written.graph().node())
        casts_of_b += n.op_type() == "Cast" && n.input(0) == "b";
      EXPECT_EQ(casts_of_b, 1);
      const Model back = import_onnx_bytes(out, "back.onnx");
      EXPECT_EQ(evaluate(FloatDomain{}, back.graph,
                         bind_variables(back.graph, back.weights, 2))
                    .at(0)
                    .data,
                y.data);
    }
}

TEST(OnnxFloat16, NodesOfFloat16GoOutAsTheModelWroteThem) {
  // Computed as float32 inside, written back in float16: no Cast in or
  // out, the weight in float16, each node as the model had it.
  for (const int32_t elem : {TP::FLOAT16, TP::BFLOAT16}) {
    SCOPED_TRACE(TP::DataType_Name(static_cast<TP::DataType>(elem)));
    OnnxModel m(17);
    m.input("x", {1, 2, 4, 4}, elem).output("y");
    declare(m.proto().mutable_graph()->mutable_output(0), elem);
    half_initializer(m, "W", elem, {3, 2, 1, 1}, {1, -2, 0.5f, 3, -1, 2}, true);
    m.node("Conv", {"x", "W"}, {"c"}).set_name("conv");
    m.node("Relu", {"c"}, {"y"}).set_name("relu");
    const Model g = import_onnx_bytes(m.bytes(), "half.onnx");
    onnx::ModelProto written;
    ASSERT_TRUE(written.ParseFromString(export_onnx_bytes(g)));
    std::vector<std::string> ops;
    for (const auto &n : written.graph().node())
      ops.push_back(n.op_type() + ":" + n.name());
    EXPECT_EQ(ops, (std::vector<std::string>{"Conv:conv", "Relu:relu"}));
    ASSERT_EQ(written.graph().initializer_size(), 1);
    EXPECT_EQ(written.graph().initializer(0).data_type(), elem);
    EXPECT_EQ(written.graph().initializer(0).raw_data(),
              m.proto().graph().initializer(0).raw_data());
  }
}

TEST(OnnxFloat16, AConvolutionReadsItsWeightAndBiasInOneType) {
  // As a mixed-precision exporter writes a float16 network: a float32
  // input cast to float16, a Conv of float16 weight and bias (out of
  // order), its result cast back. Whether the Conv goes back as the model
  // wrote it or in quarry's float32 forms, its operands share one element
  // type (ONNX's T): a bias the written-back node reads is the model's
  // float16 constant, not quarry's float32 copy of it.
  for (const int32_t elem : {TP::FLOAT16, TP::BFLOAT16}) {
    SCOPED_TRACE(TP::DataType_Name(static_cast<TP::DataType>(elem)));
    OnnxModel m(17);
    m.input("x", {1, 2, 4, 4}).output("y");
    half_initializer(m, "W", elem, {3, 2, 1, 1}, {1, -2, 0.5f, 3, -1, 2}, true);
    half_initializer(m, "B", elem, {3}, {0.5f, -1, 2}, true);
    set_int(m.node("Cast", {"c"}, {"y"}), "to", TP::FLOAT);
    m.node("Conv", {"h", "W", "B"}, {"c"}).set_name("conv");
    set_int(m.node("Cast", {"x"}, {"h"}), "to", elem);
    const Model g = import_onnx_bytes(m.bytes(), "half.onnx");
    onnx::ModelProto written;
    ASSERT_TRUE(written.ParseFromString(export_onnx_bytes(g)));
    // The element type of each initializer and Cast result.
    std::map<std::string, int64_t> type;
    for (const auto &t : written.graph().initializer())
      type[t.name()] = t.data_type();
    for (const auto &n : written.graph().node())
      if (n.op_type() == "Cast")
        type[n.output(0)] = n.attribute(0).i();
    int convs = 0;
    for (const auto &n : written.graph().node()) {
      if (n.op_type() != "Conv")
        continue;
      ++convs;
      ASSERT_EQ(n.input_size(), 3);
      ASSERT_TRUE(type.count(n.input(1)) && type.count(n.input(2)));
      EXPECT_EQ(type[n.input(1)], type[n.input(2)]);
    }
    EXPECT_EQ(convs, 1);
  }
}

TEST(OnnxFloat16, WhereQuarrysFormsMeetFloat16NodesTheyCast) {
  // Relu, Neg, Relu in float16, the Neg's record gone, as where a rewrite
  // changed it: it goes out as quarry's, in float32, between two Casts,
  // and the Relus stay float16 nodes.
  OnnxModel m(17);
  m.input("x", {4}, TP::FLOAT16).output("y");
  declare(m.proto().mutable_graph()->mutable_output(0), TP::FLOAT16);
  m.node("Relu", {"x"}, {"r"}).set_name("first");
  m.node("Neg", {"r"}, {"n"}).set_name("neg");
  m.node("Relu", {"n"}, {"y"}).set_name("second");
  Model g = import_onnx_bytes(m.bytes(), "half.onnx");
  onnx::ModelProto kept;
  ASSERT_TRUE(kept.ParseFromString(g.kept_onnx));
  for (auto &f : *kept.mutable_functions()) {
    if (f.name() != "quarry_restorable")
      continue;
    auto *nodes = f.mutable_node();
    for (int i = nodes->size() - 1; i >= 0; --i)
      if (nodes->Get(i).op_type() == "Neg")
        nodes->DeleteSubrange(i, 1);
  }
  kept.SerializeToString(&g.kept_onnx);
  onnx::ModelProto written;
  ASSERT_TRUE(written.ParseFromString(export_onnx_bytes(g)));
  std::vector<std::string> ops;
  for (const auto &n : written.graph().node())
    ops.push_back(n.op_type() == "Cast"
                      ? "Cast" + std::to_string(n.attribute(0).i())
                      : n.op_type());
  EXPECT_EQ(ops, (std::vector<std::string>{"Relu", "Cast1", "Neg", "Cast10",
                                           "Relu"}));
  EXPECT_EQ(interface_differences(m.bytes(), written.SerializeAsString()),
            std::vector<std::string>{});
  const Model back = import_onnx_bytes(written.SerializeAsString(), "b.onnx");
  Bindings<float> b;
  b["x"] = Tensor<float>(Shape{4}, std::vector<float>{-2, -0.5f, 0.5f, 3});
  EXPECT_EQ(evaluate(FloatDomain{}, back.graph, b).at(0).data,
            (std::vector<float>{0, 0, 0, 0}));
}

TEST(OnnxFloat16, ConstantsFoldToTheirTypesValues) {
  // 1/3 cast to float16 is 0.333251953125, not float32's 0.333333343.
  OnnxModel m(17);
  m.input("x", {3}).output("y").floats("third", {}, {1.0f / 3});
  set_int(m.node("Cast", {"third"}, {"h"}), "to", TP::FLOAT16);
  set_int(m.node("Cast", {"h"}, {"f"}), "to", TP::FLOAT);
  m.node("Mul", {"x", "f"}, {"y"});
  const Model g = import_onnx_bytes(m.bytes(), "fold.onnx");
  Bindings<float> b = bind_variables(g.graph, g.weights, 1);
  b.at("x") = Tensor<float>(Shape{3}, 1.0f);
  const Tensor<float> y = evaluate(FloatDomain{}, g.graph, b).at(0);
  for (float v : y.data)
    EXPECT_EQ(v, 0.333251953125f);
}

TEST(OnnxFloat16, AWeightTheOptimizerMadeGoesOutAsFloat32) {
  // A weight whose values float16 no longer holds exactly is float32.
  OnnxModel m(17);
  m.input("x", {2}, TP::FLOAT16).output("y");
  declare(m.proto().mutable_graph()->mutable_output(0), TP::FLOAT16);
  half_initializer(m, "w", TP::FLOAT16, {2}, {1, 2}, true);
  m.node("Mul", {"x", "w"}, {"y"});
  Model g = import_onnx_bytes(m.bytes(), "w.onnx");
  for (auto &[name, t] : g.weights)
    t[0] = 1.0f / 3;
  onnx::ModelProto written;
  ASSERT_TRUE(written.ParseFromString(export_onnx_bytes(g)));
  ASSERT_EQ(written.graph().initializer_size(), 1);
  EXPECT_EQ(written.graph().initializer(0).data_type(), TP::FLOAT);
}

} // namespace
} // namespace quarry
