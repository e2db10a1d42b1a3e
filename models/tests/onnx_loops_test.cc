//===- onnx_loops_test.cc - Loop and Scan as their iterations -------------===//
//
// A Loop of a constant trip count, or whose condition folds, and a Scan
// import as their body once per iteration and compute what ONNX defines;
// a condition computed at run time keeps the Loop, with the model
// otherwise imported as before.
//
//===----------------------------------------------------------------------===//
#include "model_eval.h"
#include "onnx_builder.h"

#include "quarry/models/onnx.h"

#include <gtest/gtest.h>

namespace quarry {
namespace {

using namespace quarry::testing;

/// A body graph on node `n`'s attribute "body" with inputs `in` (the first
/// `ints` of them int64 or bool scalars, the rest float of `shape`) and
/// outputs `out` (bool first where `cond_out`, the rest float of `shape`).
onnx::GraphProto &add_body(onnx::NodeProto &n,
                           const std::vector<std::string> &in,
                           const std::vector<std::string> &out,
                           const Ints &shape, bool loop) {
  auto *a = n.add_attribute();
  a->set_name("body");
  a->set_type(onnx::AttributeProto::GRAPH);
  onnx::GraphProto &g = *a->mutable_g();
  g.set_name("body");
  for (size_t i = 0; i < in.size(); ++i)
    OnnxModel::value(g.add_input(), in[i], loop && i < 2 ? Ints{} : shape,
                     loop && i == 0   ? onnx::TensorProto::INT64
                     : loop && i == 1 ? onnx::TensorProto::BOOL
                                      : onnx::TensorProto::FLOAT);
  for (size_t i = 0; i < out.size(); ++i)
    OnnxModel::value(g.add_output(), out[i], loop && i == 0 ? Ints{} : shape,
                     loop && i == 0 ? onnx::TensorProto::BOOL
                                    : onnx::TensorProto::FLOAT);
  return g;
}

onnx::NodeProto &body_node(onnx::GraphProto &g, const std::string &op,
                           const std::vector<std::string> &in,
                           const std::string &out) {
  auto *n = g.add_node();
  n->set_op_type(op);
  for (const auto &i : in)
    n->add_input(i);
  n->add_output(out);
  return *n;
}

TEST(OnnxLoops, ALoopOfConstantTripsIsItsIterations) {
  // y = x; three times: y = y + x, scanned out each time: y = 4x and the
  // scan output [2x, 3x, 4x].
  OnnxModel m(13);
  m.input("x", {2}).output("y").output("ys");
  m.ints("trips", {}, {3});
  auto &loop = m.node("Loop", {"trips", "", "x"}, {"y", "ys"});
  auto &g = add_body(loop, {"i", "c", "y_in"}, {"c_out", "y_out", "y_scan"},
                     {2}, true);
  body_node(g, "Identity", {"c"}, "c_out");
  body_node(g, "Add", {"y_in", "x"}, "y_out");
  body_node(g, "Identity", {"y_out"}, "y_scan");
  const Model model = import_onnx_bytes(m.bytes(), "loop.onnx");
  EXPECT_TRUE(kept_operator_types(model).empty());
  Bindings<float> in;
  in.emplace("x", Tensor<float>(Shape{2}, {1, -2}));
  const auto out = eval_all(model, in);
  EXPECT_EQ(out.at(0).data, (std::vector<float>{4, -8}));
  EXPECT_EQ(out.at(1).shape, (Shape{3, 2}));
  EXPECT_EQ(out.at(1).data, (std::vector<float>{2, -4, 3, -6, 4, -8}));
}

TEST(OnnxLoops, AWhileLoopStopsWhereItsFoldedConditionDoes) {
  // No trip count: y *= 2 while the iteration number is below 2 (three
  // iterations: the condition is read after each).
  OnnxModel m(13);
  m.input("x", {2}).output("y");
  m.floats("two", {}, {2}).ints("limit", {}, {2});
  auto &loop = m.node("Loop", {"", "", "x"}, {"y"});
  auto &g = add_body(loop, {"i", "c", "y_in"}, {"c_out", "y_out"}, {2}, true);
  body_node(g, "Less", {"i", "limit"}, "c_out");
  body_node(g, "Mul", {"y_in", "two"}, "y_out");
  const Model model = import_onnx_bytes(m.bytes(), "while.onnx");
  EXPECT_TRUE(kept_operator_types(model).empty());
  Bindings<float> in;
  in.emplace("x", Tensor<float>(Shape{2}, {1, 3}));
  EXPECT_EQ(eval_first(model, in), (std::vector<float>{8, 24}));
}

TEST(OnnxLoops, AConditionComputedAtRunTimeKeepsTheLoop) {
  OnnxModel m(13);
  m.input("x", {2}).output("y");
  m.ints("trips", {}, {4}).floats("zero", {}, {0});
  auto &loop = m.node("Loop", {"trips", "", "x"}, {"y"});
  auto &g = add_body(loop, {"i", "c", "y_in"}, {"c_out", "y_out"}, {2}, true);
  body_node(g, "Relu", {"y_in"}, "y_out");
  set_int(body_node(g, "ReduceSum", {"y_out"}, "s"), "keepdims", 0);
  body_node(g, "Greater", {"s", "zero"}, "c_out");
  const Model model = import_onnx_bytes(m.bytes(), "kept.onnx");
  EXPECT_EQ(kept_operator_types(model), (std::vector<std::string>{"Loop"}));
}

TEST(OnnxLoops, AScanIsItsBodyOncePerSlice) {
  // A running sum over axis 1 of x [2,3], read backwards, each partial sum
  // scanned out along axis 1: s = x[:,2], then + x[:,1], then + x[:,0].
  OnnxModel m(16);
  m.input("x", {2, 3}).output("total").output("sums");
  m.floats("init", {2}, {0, 0});
  auto &scan = m.node("Scan", {"init", "x"}, {"total", "sums"});
  set_int(scan, "num_scan_inputs", 1);
  set_ints(scan, "scan_input_axes", {1});
  set_ints(scan, "scan_input_directions", {1});
  set_ints(scan, "scan_output_axes", {1});
  auto &g = add_body(scan, {"s_in", "col"}, {"s_out", "s_scan"}, {2}, false);
  body_node(g, "Add", {"s_in", "col"}, "s_out");
  body_node(g, "Identity", {"s_out"}, "s_scan");
  const Model model = import_onnx_bytes(m.bytes(), "scan.onnx");
  EXPECT_TRUE(kept_operator_types(model).empty());
  Bindings<float> in;
  in.emplace("x", Tensor<float>(Shape{2, 3}, {1, 2, 3, 10, 20, 30}));
  const auto out = eval_all(model, in);
  EXPECT_EQ(out.at(0).data, (std::vector<float>{6, 60}));
  EXPECT_EQ(out.at(1).shape, (Shape{2, 3}));
  EXPECT_EQ(out.at(1).data, (std::vector<float>{3, 5, 6, 30, 50, 60}));
}

} // namespace
} // namespace quarry
