//===- onnx_logic_test.cc - Comparisons, logic, Where and computed Ifs ----===//
//
// ONNX's booleans are 0 and 1 in quarry's graph: comparisons, Not, And, Or,
// Xor, IsNaN and Where import as operators that run; a model output that is a
// bool is cast back to BOOL by export; a kept node reading one reads it
// cast to BOOL; an If on a computed condition becomes both branches and a
// where per output.
//
//===----------------------------------------------------------------------===//
#include "model_eval.h"
#include "onnx_builder.h"

#include "quarry/core/evaluate.h"
#include "quarry/core/float_domain.h"
#include "quarry/models/onnx.h"
#include "quarry/testing/error_of.h"

#include <gtest/gtest.h>

#include <cmath>

namespace quarry {
namespace {

using namespace quarry::testing;

TEST(OnnxLogic, ComparisonsAndWhereRunAndBoolsGoBackOutAsBools) {
  // y = where(x >= 0 and not (x == 2), x, -x); b = x < 1, a bool output.
  OnnxModel m;
  m.input("x", {4}).output("y");
  m.floats("zero", {}, {0}).floats("two", {}, {2});
  m.node("GreaterOrEqual", {"x", "zero"}, {"ge"});
  m.node("Equal", {"x", "two"}, {"eq"});
  m.node("Not", {"eq"}, {"ne"});
  m.node("And", {"ge", "ne"}, {"c"});
  m.node("Neg", {"x"}, {"nx"});
  m.node("Where", {"c", "x", "nx"}, {"y"});
  m.floats("one", {}, {1});
  m.node("Less", {"x", "one"}, {"b"});
  OnnxModel::value(m.proto().mutable_graph()->add_output(), "b", {4},
                   onnx::TensorProto::BOOL);
  const Model g = import_onnx_bytes(m.bytes(), "w.onnx");
  EXPECT_TRUE(kept_operator_types(g).empty());
  Bindings<float> in;
  in.emplace("x", Tensor<float>(Shape{4}, {-3, 2, 0.5f, 5}));
  EXPECT_EQ(eval_first(g, in), (std::vector<float>{3, -2, 0.5f, 5}));

  onnx::ModelProto out;
  ASSERT_TRUE(out.ParseFromString(export_onnx_bytes(g)));
  ASSERT_EQ(out.graph().output_size(), 2);
  EXPECT_EQ(out.graph().output(0).type().tensor_type().elem_type(),
            onnx::TensorProto::FLOAT);
  EXPECT_EQ(out.graph().output(1).type().tensor_type().elem_type(),
            onnx::TensorProto::BOOL);
  // And it imports again the same.
  const Model back = import_onnx_bytes(out.SerializeAsString(), "back.onnx");
  EXPECT_TRUE(kept_operator_types(back).empty());
  EXPECT_EQ(eval_first(back, in), (std::vector<float>{3, -2, 0.5f, 5}));
}

TEST(OnnxLogic, IsNanImportsAsAComparisonThatRuns) {
  // The NaN-safe softmax PyTorch exports for attention:
  // y = Where(IsNaN(x), 0, x), imported as where(x != x, 0, x).
  OnnxModel m;
  m.input("x", {4}).output("y");
  m.floats("zero", {}, {0});
  m.node("IsNaN", {"x"}, {"nan"});
  m.node("Where", {"nan", "zero", "x"}, {"y"});
  const Model g = import_onnx_bytes(m.bytes(), "n.onnx");
  EXPECT_TRUE(kept_operator_types(g).empty());
  Bindings<float> in;
  in.emplace("x", Tensor<float>(Shape{4}, {1, std::nanf(""), -2, 0}));
  EXPECT_EQ(eval_first(g, in), (std::vector<float>{1, 0, -2, 0}));
}

TEST(OnnxLogic, AnOutputOfATypeNoCastMakesGoesOutAsItIsHeld) {
  // Found by fuzzing: an output declared of element type 73 (no such type)
  // was cast to it, and the export did not import again.
  OnnxModel m;
  m.input("x", {2}, onnx::TensorProto::BOOL);
  m.node("Not", {"x"}, {"y"});
  OnnxModel::value(m.proto().mutable_graph()->add_output(), "y", {2}, 73);
  const Model g = import_onnx_bytes(m.bytes(), "t.onnx");
  const Model back = import_onnx_bytes(export_onnx_bytes(g), "back.onnx");
  EXPECT_TRUE(kept_operator_types(back).empty());
}

TEST(OnnxLogic, AKeptNodeReadsABoolAsABool) {
  // Compress (which quarry's algebra has not: it is kept) takes its
  // condition as a bool.
  OnnxModel m;
  m.input("x", {4});
  m.floats("zero", {}, {0});
  m.node("Greater", {"x", "zero"}, {"c"});
  m.node("Compress", {"x", "c"}, {"y"});
  OnnxModel::value(m.proto().mutable_graph()->add_output(), "y", {0});
  const Model g = import_onnx_bytes(m.bytes(), "c.onnx");
  // The cast to BOOL is kept too; Compress's output length depends on the
  // values, so it is the untyped tail.
  EXPECT_EQ(kept_operator_types(g),
            (std::vector<std::string>{"Cast", "Compress"}));
  // Export writes the Greater back computing the bool, which Compress
  // reads as the model wrote it: import's Cast is gone, and no Cast to
  // float32 and back nor Identity stands between them.
  onnx::ModelProto out;
  ASSERT_TRUE(out.ParseFromString(export_onnx_bytes(g)));
  std::vector<std::string> ops;
  for (const auto &n : out.graph().node())
    ops.push_back(n.op_type());
  EXPECT_EQ(ops, (std::vector<std::string>{"Greater", "Compress"}));
  EXPECT_EQ(out.graph().node(1).input(1), out.graph().node(0).output(0));
}

TEST(OnnxLogic, AnIfOnAComputedConditionTakesBothBranchesAndChooses) {
  // y = If(sum(x) > 0) { relu(x) } else { neg(x) }.
  OnnxModel m;
  m.input("x", {3}).output("y");
  set_int(m.node("ReduceSum", {"x"}, {"s"}), "keepdims", 0);
  m.floats("zero", {}, {0});
  m.node("Greater", {"s", "zero"}, {"cond"});
  auto &n = m.node("If", {"cond"}, {"y"});
  add_branch(n, "then_branch", "Relu", "x", {3});
  add_branch(n, "else_branch", "Neg", "x", {3});
  const Model g = import_onnx_bytes(m.bytes(), "if.onnx");
  EXPECT_TRUE(kept_operator_types(g).empty());
  for (const auto &[x, want] :
       {std::pair{std::vector<float>{1, -2, 3}, std::vector<float>{1, 0, 3}},
        std::pair{std::vector<float>{-1, -2, 1},
                  std::vector<float>{1, 2, -1}}}) {
    Bindings<float> in;
    in.emplace("x", Tensor<float>(Shape{3}, x));
    EXPECT_EQ(eval_first(g, in), want);
  }
}

TEST(OnnxLogic, AnIfWhoseBranchesDifferInShapeIsKept) {
  OnnxModel m;
  m.input("x", {3}).output("y");
  m.floats("zero", {}, {0});
  set_int(m.node("ReduceSum", {"x"}, {"s"}), "keepdims", 0);
  m.node("Greater", {"s", "zero"}, {"cond"});
  auto &n = m.node("If", {"cond"}, {"y"});
  add_branch(n, "then_branch", "Relu", "x", {3});
  add_branch(n, "else_branch", "ReduceSum", "x", {1});
  const Model g = import_onnx_bytes(m.bytes(), "if.onnx");
  // The If stays as it is (its output's shape is not fixed: the untyped
  // tail), and nothing of the attempt is left behind.
  EXPECT_EQ(kept_operator_types(g), (std::vector<std::string>{"Cast", "If"}));
}

} // namespace
} // namespace quarry
