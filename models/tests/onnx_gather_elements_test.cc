//===- onnx_gather_elements_test.cc - GatherElements imports and runs -----===//
//
// GatherElements becomes gather_elements over indices held as float32,
// constant or computed; export writes it back with the indices cast to
// int64; one whose inputs are all constants folds (a BERT's token types,
// an int64 buffer picked at int64 positions, stay integers for the Gather
// that reads them).
//
//===----------------------------------------------------------------------===//
#include "model_eval.h"
#include "onnx_builder.h"

#include "quarry/core/evaluate.h"
#include "quarry/core/float_domain.h"
#include "quarry/models/onnx.h"

#include <gtest/gtest.h>

namespace quarry {
namespace {

using namespace quarry::testing;

Bindings<float> x_of(const Shape &s, std::vector<float> v) {
  Bindings<float> in;
  in.emplace("x", Tensor<float>(s, std::move(v)));
  return in;
}

/// y = GatherElements(x, idx) at `opset`, x an input of `xs`, idx an int64
/// initializer; `axis` is left unset when nullopt.
OnnxModel gather_elements(int64_t opset, const Ints &xs, const Ints &is,
                          const Ints &idx, std::optional<int64_t> axis) {
  OnnxModel m(opset);
  m.input("x", xs).output("y").ints("idx", is, idx);
  auto &n = m.node("GatherElements", {"x", "idx"}, {"y"});
  if (axis)
    set_int(n, "axis", *axis);
  return m;
}

/// The model imports without kept nodes into one gather_elements, gives
/// `want` for `in`, and gives it again after export and import.
void expect_runs(const OnnxModel &m, const Bindings<float> &in,
                 const std::vector<float> &want) {
  const Model g = import_onnx_bytes(m.bytes(), "g.onnx");
  EXPECT_TRUE(kept_operator_types(g).empty());
  const Node &y = g.graph.node(g.graph.outputs().at(0).node);
  EXPECT_EQ(y.kind, OpKind::GatherElements);
  EXPECT_EQ(eval_first(g, in), want);

  onnx::ModelProto out;
  ASSERT_TRUE(out.ParseFromString(export_onnx_bytes(g)));
  int gathers = 0;
  for (const auto &n : out.graph().node())
    gathers += n.op_type() == "GatherElements";
  EXPECT_EQ(gathers, 1);
  const Model back = import_onnx_bytes(out.SerializeAsString(), "back.onnx");
  EXPECT_TRUE(kept_operator_types(back).empty());
  EXPECT_EQ(eval_first(back, in), want);
}

TEST(OnnxGatherElements, ConstantIndicesAtOpsetsElevenAndThirteen) {
  const auto x = x_of(Shape{3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  for (int64_t opset : {11, 13}) {
    SCOPED_TRACE(opset);
    // ONNX's example with negative indices; the axis defaults to 0.
    expect_runs(
        gather_elements(opset, {3, 3}, {2, 3}, {-1, -2, 0, -2, 0, 0}, {}), x,
        {7, 5, 3, 4, 2, 3});
    // A negative axis counts from the last.
    expect_runs(gather_elements(opset, {3, 3}, {3, 1}, {2, 0, -3}, -1), x,
                {3, 4, 7});
  }
}

TEST(OnnxGatherElements, ComputedIndicesAreReadWhenTheGraphRuns) {
  // Indices from a Cast to int32 (truncation, held as float32).
  OnnxModel m(13);
  m.input("x", {2, 2}).input("f", {2, 2}).output("y");
  set_int(m.node("Cast", {"f"}, {"idx"}), "to", onnx::TensorProto::INT32);
  set_int(m.node("GatherElements", {"x", "idx"}, {"y"}), "axis", 1);
  const Model g = import_onnx_bytes(m.bytes(), "c.onnx");
  EXPECT_TRUE(kept_operator_types(g).empty());
  Bindings<float> in = x_of(Shape{2, 2}, {1, 2, 3, 4});
  in.emplace("f", Tensor<float>(Shape{2, 2}, {0, 0, 1.7f, -1}));
  EXPECT_EQ(eval_first(g, in), (std::vector<float>{1, 1, 4, 4}));
  // An index past the axis is an error when it is read.
  in.insert_or_assign("f", Tensor<float>(Shape{2, 2}, {0, 2, 0, 0}));
  EXPECT_THROW(eval_first(g, in), Error);
}

TEST(OnnxGatherElements, AConstantIndexOutOfRangeKeepsTheNodeSayingWhy) {
  const Model g = import_onnx_bytes(
      gather_elements(13, {2, 3}, {2, 1}, {0, 3}, 1).bytes(), "r.onnx");
  EXPECT_EQ(kept_operator_types(g),
            (std::vector<std::string>{"GatherElements"}));
  EXPECT_NE(unrunnable_reason(g).find("index 3 out of range for axis 1"),
            std::string::npos)
      << unrunnable_reason(g);
}

TEST(OnnxGatherElements, OfConstantsFoldsAndIntegersStayIntegers) {
  // BertEmbeddings' token types: an int64 buffer expanded to the batch and
  // gathered at the positions, then the indices of an embedding's Gather.
  OnnxModel m(17);
  m.input("x", {2, 3, 2}).output("y");
  m.ints("types", {1, 4}, {0, 1, 1, 0}).ints("batch", {2, 4});
  m.ints("pos", {2, 3}, {1, 2, 3, 0, 0, 3});
  m.floats("table", {2, 2}, {10, 20, 30, 40});
  m.node("Expand", {"types", "batch"}, {"expanded"});
  set_int(m.node("GatherElements", {"expanded", "pos"}, {"picked"}), "axis", 1);
  m.node("Gather", {"table", "picked"}, {"embedded"});
  m.node("Add", {"x", "embedded"}, {"y"});
  const Model g = import_onnx_bytes(m.bytes(), "bert.onnx");
  EXPECT_TRUE(kept_operator_types(g).empty());
  EXPECT_EQ(g.graph.num_operators(), 1); // the add alone
  // picked = [[1, 1, 0], [0, 0, 0]]: rows 30,40 twice, then 10,20.
  EXPECT_EQ(
      eval_first(g, x_of(Shape{2, 3, 2}, std::vector<float>(12, 0))),
      (std::vector<float>{30, 40, 30, 40, 10, 20, 10, 20, 10, 20, 10, 20}));
}

TEST(OnnxGatherElements, OfFloatConstantsFoldsToItsValues) {
  OnnxModel m(13);
  m.output("y")
      .floats("d", {2, 2}, {1, 2, 3, 4})
      .ints("i", {2, 2}, {0, 0, 1, 0});
  set_int(m.node("GatherElements", {"d", "i"}, {"y"}), "axis", 1);
  const Model g = import_onnx_bytes(m.bytes(), "f.onnx");
  const Node &y = g.graph.node(g.graph.outputs().at(0).node);
  ASSERT_EQ(y.kind, OpKind::Weight);
  EXPECT_EQ(g.weights.at(y.name).data, (std::vector<float>{1, 1, 4, 3}));
}

} // namespace
} // namespace quarry
