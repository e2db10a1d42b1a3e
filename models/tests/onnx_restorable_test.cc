//===- onnx_restorable_test.cc - Untouched nodes go out as they were ------===//
//
// Import states an InstanceNormalization, a LogSoftmax or a 3-D convolution
// as several of quarry's operators; export writes the node itself back,
// at the model's opset, wherever the graph still holds those operators as
// import made them, and quarry's forms where it does not.
//
//===----------------------------------------------------------------------===//
#include "model_eval.h"
#include "onnx_builder.h"

#include "quarry/core/evaluate.h"
#include "quarry/core/float_domain.h"
#include "quarry/models/onnx.h"
#include "quarry/models/zoo.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

namespace quarry {
namespace {

using namespace quarry::testing;

struct Written {
  int64_t opset = 0;
  std::vector<std::string> ops;
  std::map<std::string, std::vector<int64_t>> initializers;
  onnx::ModelProto model;
};

Written written(const Model &m) {
  Written w;
  EXPECT_TRUE(w.model.ParseFromString(export_onnx_bytes(m)));
  for (const auto &op : w.model.opset_import())
    if (op.domain().empty())
      w.opset = op.version();
  for (const auto &n : w.model.graph().node())
    w.ops.push_back(n.op_type());
  for (const auto &t : w.model.graph().initializer())
    w.initializers[t.name()] = {t.dims().begin(), t.dims().end()};
  return w;
}

/// `exported`, imported again, computes what `m` computes on the same
/// seeded inputs.
void computes_the_same(const Model &m, const std::string &exported) {
  expect_same_outputs(m, import_onnx_bytes(exported, "exported"), 3);
}

/// Opset 6: an InstanceNormalization, then a LogSoftmax of its result.
OnnxModel norm_then_log_softmax() {
  OnnxModel m(6);
  m.input("x", {1, 2, 3, 3}).output("y");
  m.floats("s", {2}, {1, 2}).floats("b", {2}, {0, 1});
  m.node("InstanceNormalization", {"x", "s", "b"}, {"n"}).set_name("norm");
  m.ints("shape", {1, 18});
  m.node("Reshape", {"n", "shape"}, {"r"});
  m.node("LogSoftmax", {"r"}, {"y"}).set_name("lsm");
  return m;
}

TEST(OnnxRestorable, CompositesGoBackAsTheModelHadThem) {
  const Model m = import_onnx_bytes(norm_then_log_softmax().bytes(), "m");
  const Written w = written(m);
  EXPECT_EQ(w.ops, (std::vector<std::string>{"InstanceNormalization", "Reshape",
                                             "LogSoftmax"}));
  EXPECT_EQ(w.opset, 6);
  EXPECT_EQ(w.model.graph().node(0).name(), "norm");
  EXPECT_EQ(w.model.graph().node(0).output(0), "n");
  // The scale and bias under their names, as [C].
  EXPECT_EQ(w.initializers.at("s"), (std::vector<int64_t>{2}));
  EXPECT_EQ(w.initializers.at("b"), (std::vector<int64_t>{2}));
  computes_the_same(m, export_onnx_bytes(m));
}

TEST(OnnxRestorable, WhatARewriteTouchedGoesOutInQuarrysForms) {
  Model m = import_onnx_bytes(norm_then_log_softmax().bytes(), "m");
  // The LogSoftmax's result computed anew, as a rewrite does (without the
  // name import gave it): its operators go out in quarry's forms, and the
  // normalization, whose operator means the same at the opset those need,
  // still as the model had it.
  for (int32_t id = 0; id < m.graph.num_nodes(); ++id)
    if (m.graph.node(id).name == "y")
      m.graph.set_name(id, "");
  const Written w = written(m);
  EXPECT_EQ(std::count(w.ops.begin(), w.ops.end(), "InstanceNormalization"), 1);
  EXPECT_EQ(std::count(w.ops.begin(), w.ops.end(), "LogSoftmax"), 0);
  computes_the_same(m, export_onnx_bytes(m));
}

TEST(OnnxRestorable, NamesOfNodesWrittenBackAreNotTakenAgain) {
  // A model quarry wrote (its nodes named t5_conv, ...) imported, and every
  // other node rewritten (its result computed anew, without a name):
  // what goes out in quarry's forms is named apart from the nodes written
  // back, as ONNX Runtime requires.
  ModelOptions o;
  o.size = 75;
  const Model net = build_model("inception_v3", o);
  Model m = import_onnx_bytes(export_onnx_bytes(net), "inception.onnx");
  int k = 0;
  for (int32_t id = 0; id < m.graph.num_nodes(); ++id)
    if (!m.graph.node(id).is_variable() &&
        m.graph.node(id).kind == OpKind::Conv2D && ++k % 2)
      m.graph.set_name(id, "");
  const Written w = written(m);
  std::set<std::string> names;
  for (const auto &n : w.model.graph().node())
    EXPECT_TRUE(n.name().empty() || names.insert(n.name()).second)
        << "two nodes are named " << n.name();
  std::set<std::string> values;
  for (const auto &n : w.model.graph().node())
    for (const auto &out : n.output())
      EXPECT_TRUE(values.insert(out).second) << out << " is computed twice";
}

TEST(OnnxRestorable, BoolsGoBackInTheirOwnType) {
  // quarry holds bools as float32; a Not of opset 1 and an Or of opset 7
  // go back as they were, reading and computing bools, without a Cast
  // (whose form before opset 6 quarry does not write).
  OnnxModel n(1);
  n.input("x", {2, 3}, onnx::TensorProto::BOOL).output("y");
  n.node("Not", {"x"}, {"y"});
  n.proto()
      .mutable_graph()
      ->mutable_output(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->set_elem_type(onnx::TensorProto::BOOL);
  const Model not_model = import_onnx_bytes(n.bytes(), "not");
  const Written a = written(not_model);
  EXPECT_EQ(a.ops, std::vector<std::string>{"Not"});
  EXPECT_EQ(a.opset, 1);
  EXPECT_EQ(a.model.graph().input(0).type().tensor_type().elem_type(),
            onnx::TensorProto::BOOL);
  EXPECT_EQ(a.model.graph().output(0).type().tensor_type().elem_type(),
            onnx::TensorProto::BOOL);

  OnnxModel o(7);
  o.input("x", {3, 4}, onnx::TensorProto::BOOL)
      .input("y", {4}, onnx::TensorProto::BOOL)
      .output("z");
  o.node("Or", {"x", "y"}, {"z"});
  o.proto()
      .mutable_graph()
      ->mutable_output(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->set_elem_type(onnx::TensorProto::BOOL);
  const Model or_model = import_onnx_bytes(o.bytes(), "or");
  const Written b = written(or_model);
  EXPECT_EQ(b.ops, std::vector<std::string>{"Or"});
  EXPECT_EQ(b.opset, 7);
  computes_the_same(or_model, export_onnx_bytes(or_model));
}

TEST(OnnxRestorable, ABoolReadAsANumberIsCastWhereQuarrysFormsReadIt) {
  // The Not's bools are read as numbers (Cast to float, then an Add): the
  // Not goes out as the model wrote it, cast to float32 for the Add, and
  // the file computes the same.
  OnnxModel m(13);
  m.input("x", {2, 3}, onnx::TensorProto::BOOL).output("y");
  m.floats("w", {3}, {1, 2, 3});
  m.node("Not", {"x"}, {"n"});
  set_int(m.node("Cast", {"n"}, {"c"}), "to", onnx::TensorProto::FLOAT);
  m.node("Add", {"c", "w"}, {"y"});
  const Model imported = import_onnx_bytes(m.bytes(), "not_add");
  const Written w = written(imported);
  EXPECT_EQ(w.ops, (std::vector<std::string>{"Not", "Cast", "Add"}));
  EXPECT_EQ(w.model.graph().node(0).output(0), "n");
  computes_the_same(imported, export_onnx_bytes(imported));
}

TEST(OnnxRestorable, ThreeDimensionalConvolutionStaysOneNode) {
  OnnxModel c(6);
  c.input("x", {1, 2, 3, 4, 4}).output("y");
  std::vector<float> w(4 * 2 * 2 * 3 * 3);
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = static_cast<float>(i % 5) / 5 - 0.4f;
  c.floats("w", {4, 2, 2, 3, 3}, w).floats("bias", {4}, {1, 2, 3, 4});
  auto &conv = c.node("Conv", {"x", "w", "bias"}, {"y"});
  set_ints(conv, "pads", {0, 1, 1, 0, 1, 1});
  const Model m = import_onnx_bytes(c.bytes(), "conv3d");
  const Written out = written(m);
  EXPECT_EQ(out.ops, (std::vector<std::string>{"Conv"}));
  EXPECT_EQ(out.opset, 6);
  EXPECT_EQ(out.initializers.at("w"), (std::vector<int64_t>{4, 2, 2, 3, 3}));
  EXPECT_EQ(out.initializers.at("bias"), (std::vector<int64_t>{4}));
  computes_the_same(m, export_onnx_bytes(m));
}

TEST(OnnxRestorable, AConstantOperandIsWrittenAsTheModelHadIt) {
  // Upsample's scales, a constant quarry reads as an attribute.
  OnnxModel u(9);
  u.input("x", {1, 1, 2, 2}).output("y");
  u.floats("scales", {4}, {1, 1, 2, 3});
  set_string(u.node("Upsample", {"x", "scales"}, {"y"}), "mode", "nearest");
  const Model m = import_onnx_bytes(u.bytes(), "upsample");
  const Written w = written(m);
  EXPECT_EQ(w.ops, (std::vector<std::string>{"Upsample"}));
  EXPECT_EQ(w.opset, 9);
  EXPECT_EQ(w.initializers.at("scales"), (std::vector<int64_t>{4}));
  computes_the_same(m, export_onnx_bytes(m));
}

TEST(OnnxRestorable, NodesOfALateOpsetGoBackInTheirOwnForms) {
  // Opset 21 at IR 10, as today's exporters write it: a Gelu (an operator
  // since 20), a Split by num_outputs (18), a ReduceMean and a Squeeze
  // whose axes are inputs. Each goes out as the model wrote it, not in the
  // opset-17 forms import states it by, and the file keeps its IR.
  OnnxModel g(21);
  g.proto().set_ir_version(10);
  g.input("x", {1, 4, 6}).output("y");
  g.ints("mean_axes", {-1}).ints("squeeze_axes", {2});
  g.node("Gelu", {"x"}, {"g"}).set_name("gelu");
  auto &split = g.node("Split", {"g"}, {"a", "b"});
  set_int(split, "axis", 2);
  set_int(split, "num_outputs", 2);
  g.node("Mul", {"a", "b"}, {"m"});
  g.node("ReduceMean", {"m", "mean_axes"}, {"r"});
  g.node("Squeeze", {"r", "squeeze_axes"}, {"y"});
  const Model m = import_onnx_bytes(g.bytes(), "late.onnx");
  const Written w = written(m);
  EXPECT_EQ(w.ops, (std::vector<std::string>{"Gelu", "Split", "Mul",
                                             "ReduceMean", "Squeeze"}));
  EXPECT_EQ(w.opset, 21);
  EXPECT_EQ(w.model.ir_version(), 10);
  EXPECT_EQ(w.model.opset_import_size(), 1);
  for (const auto &n : w.model.graph().node())
    EXPECT_EQ(n.domain(), "") << n.op_type();
  const onnx::NodeProto &s = w.model.graph().node(1);
  ASSERT_EQ(s.attribute_size(), 2);
  EXPECT_EQ(s.attribute(1).name(), "num_outputs");
  EXPECT_EQ(s.input_size(), 1);
  EXPECT_EQ(w.initializers.at("squeeze_axes"), (std::vector<int64_t>{1}));
  computes_the_same(m, export_onnx_bytes(m));
}

} // namespace
} // namespace quarry
