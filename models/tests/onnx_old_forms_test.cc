//===- onnx_old_forms_test.cc - A model goes back out at its own opset ----===//
//
// Export writes quarry's operators in their opset-14 forms; a model of an
// earlier opset is written back at that opset, each node in that opset's
// form, where it can be said there, and computes the same.
//
//===----------------------------------------------------------------------===//
#include "model_eval.h"
#include "onnx_builder.h"
#include "without_records.h"

#include "quarry/core/evaluate.h"
#include "quarry/core/float_domain.h"
#include "quarry/core/random.h"
#include "quarry/models/onnx.h"

#include <gtest/gtest.h>

#include <map>

namespace quarry {
namespace {

using namespace quarry::testing;

struct Written {
  int64_t opset = 0;
  std::vector<onnx::NodeProto> nodes;
  const onnx::NodeProto *find(const std::string &op) const {
    for (const auto &n : nodes)
      if (n.op_type() == op)
        return &n;
    return nullptr;
  }
};

/// `m` imported and exported in quarry's forms (as a rewrite leaves them),
/// not as the nodes it had (onnx_restorable.h).
Written export_of(const OnnxModel &m) {
  onnx::ModelProto p;
  EXPECT_TRUE(p.ParseFromString(
      export_onnx_bytes(without_records(import_onnx_bytes(m.bytes(), "m")))));
  Written w;
  for (const auto &op : p.opset_import())
    if (op.domain().empty())
      w.opset = op.version();
  w.nodes.assign(p.graph().node().begin(), p.graph().node().end());
  return w;
}

std::map<std::string, onnx::AttributeProto> attrs(const onnx::NodeProto &n) {
  std::map<std::string, onnx::AttributeProto> out;
  for (const auto &a : n.attribute())
    out[a.name()] = a;
  return out;
}

/// The outputs of `m` and of its export, imported again, on the same
/// seeded inputs, agree.
void computes_the_same(const OnnxModel &m) {
  const Model a = import_onnx_bytes(m.bytes(), "m");
  const Model b =
      import_onnx_bytes(export_onnx_bytes(without_records(a)), "exported");
  expect_same_outputs(a, b, 5);
}

TEST(OnnxOldForms, ConstantInputsGoBackToAttributes) {
  // Opset 9: Pad's pads and value, Slice's bounds, Clip's bounds and
  // Unsqueeze's axes were attributes.
  OnnxModel m(9);
  m.input("x", {1, 2, 4, 4}).output("y");
  auto &pad = m.node("Pad", {"x"}, {"p"});
  set_ints(pad, "pads", {0, 0, 1, 1, 0, 0, 1, 1});
  set_float(pad, "value", 0.5f);
  auto &slice = m.node("Slice", {"p"}, {"s"});
  set_ints(slice, "starts", {1});
  set_ints(slice, "ends", {5});
  set_ints(slice, "axes", {2});
  auto &clip = m.node("Clip", {"s"}, {"c"});
  set_float(clip, "min", -0.25f);
  set_float(clip, "max", 0.75f);
  auto &unsq = m.node("Unsqueeze", {"c"}, {"y"});
  set_ints(unsq, "axes", {0});
  const Written w = export_of(m);
  EXPECT_EQ(w.opset, 9);
  ASSERT_TRUE(w.find("Pad") && w.find("Slice") && w.find("Clip"));
  EXPECT_EQ(w.find("Pad")->input_size(), 1);
  EXPECT_EQ(attrs(*w.find("Pad"))["pads"].ints_size(), 8);
  EXPECT_FLOAT_EQ(attrs(*w.find("Pad"))["value"].f(), 0.5f);
  EXPECT_EQ(w.find("Slice")->input_size(), 1);
  EXPECT_EQ(attrs(*w.find("Slice"))["starts"].ints(0), 1);
  EXPECT_EQ(w.find("Clip")->input_size(), 1);
  EXPECT_FLOAT_EQ(attrs(*w.find("Clip"))["max"].f(), 0.75f);
  computes_the_same(m);
}

TEST(OnnxOldForms, BroadcastingBeforeSevenIsAskedForOverARunOfAxes) {
  // Opset 6: b [3] at axis 1 of [1,3,4,4], which quarry holds as [3,1,1],
  // is written as that reshaped to [3] with broadcast=1 and axis=1.
  OnnxModel m(6);
  m.input("x", {1, 3, 4, 4}).input("b", {3}).output("y");
  m.ints("shape", {1, 48});
  auto &add = m.node("Add", {"x", "b"}, {"s"});
  set_int(add, "broadcast", 1);
  set_int(add, "axis", 1);
  m.node("Reshape", {"s", "shape"}, {"y"});
  const Written w = export_of(m);
  EXPECT_EQ(w.opset, 6);
  const onnx::NodeProto *a = w.find("Add");
  ASSERT_TRUE(a);
  EXPECT_EQ(attrs(*a)["broadcast"].i(), 1);
  EXPECT_EQ(attrs(*a)["axis"].i(), 1);
  computes_the_same(m);
}

TEST(OnnxOldForms, BeforeSevenOnlyOperatorsOnnxRuntimeRunsThereAreWritten) {
  // ONNX Runtime runs nothing of opset 6 that changed up to 7 (Add 6,
  // AveragePool 1): an opset-6 model goes out at 6 only with such
  // operators where it had them. InstanceNormalization is written as
  // arithmetic (Sub 6, ...), which this model had not.
  OnnxModel m(6);
  m.input("x", {1, 2, 3, 3}).output("y");
  m.floats("s", {2}, {1, 2}).floats("b", {2}, {0, 1});
  m.node("InstanceNormalization", {"x", "s", "b"}, {"y"});
  EXPECT_EQ(export_of(m).opset, 14);
  computes_the_same(m);
  // A Reshape (5 in opset 6, as in 7) may be new.
  OnnxModel r(6);
  r.input("x", {2, 6}).output("y");
  r.node("Flatten", {"x"}, {"y"});
  EXPECT_EQ(export_of(r).opset, 6);
}

TEST(OnnxOldForms, MeaningsThatChangedAreKeptWhereTheShapesAgree) {
  // Max broadcast only from 8: of equal shapes it means the same at 7.
  // BatchNormalization at 7 (one output: inference) too.
  OnnxModel m(7);
  m.input("x", {1, 2, 3, 3}).input("z", {1, 2, 3, 3}).output("y");
  m.floats("scale", {2}, {1, 2}).floats("bias", {2}, {0, 1});
  m.floats("mean", {2}, {0.5f, -0.5f}).floats("var", {2}, {1, 4});
  m.node("Max", {"x", "z"}, {"m"});
  m.node("BatchNormalization", {"m", "scale", "bias", "mean", "var"}, {"y"});
  const Written w = export_of(m);
  EXPECT_EQ(w.opset, 7);
  computes_the_same(m);
}

TEST(OnnxOldForms, WhatTheOpsetCannotSayGoesOutAtTheLaterOne) {
  // Or of bools is Max of 0s and 1s to quarry; Max broadcast only from
  // opset 8, so at 7 a broadcasting Or has no form there.
  OnnxModel m(7);
  m.input("a", {2, 3}, onnx::TensorProto::BOOL)
      .input("b", {3}, onnx::TensorProto::BOOL);
  m.node("Or", {"a", "b"}, {"y"});
  auto *y = m.proto().mutable_graph()->add_output();
  OnnxModel::value(y, "y", {2, 3}, onnx::TensorProto::BOOL);
  const Written w = export_of(m);
  EXPECT_EQ(w.opset, 14);
  ASSERT_TRUE(w.find("Max"));
}

} // namespace
} // namespace quarry
