//===- onnx_export_branches_test.cc - Ifs import wrote as Wheres, back ----===//
#include "onnx_builder.h"

#include "quarry/core/evaluate.h"
#include "quarry/core/float_domain.h"
#include "quarry/models/onnx.h"

#include <gtest/gtest.h>

#include <array>
#include <regex>

namespace quarry {
namespace {

using namespace quarry::testing;

/// x: [3]; cond = sum(x) > 0; If k of `ifs` (then op, else op, what they
/// read) computes output yk. `between` (an operator, or none) reads y0
/// into z0 right after it.
OnnxModel choices(const std::vector<std::array<std::string, 3>> &ifs,
                  const std::string &between = "") {
  OnnxModel m;
  m.input("x", {3});
  set_int(m.node("ReduceSum", {"x"}, {"s"}), "keepdims", 0);
  m.floats("zero", {}, {0});
  m.node("Greater", {"s", "zero"}, {"cond"});
  for (size_t k = 0; k < ifs.size(); ++k) {
    const std::string y = "y" + std::to_string(k);
    auto &n = m.node("If", {"cond"}, {y});
    add_branch(n, "then_branch", ifs[k][0], ifs[k][2], {3}, y + "_then");
    add_branch(n, "else_branch", ifs[k][1], ifs[k][2], {3}, y + "_else");
    m.output(y);
    if (k == 0 && !between.empty())
      m.node(between, {"y0"}, {"z0"});
  }
  return m;
}

struct Written {
  int ifs = 0, wheres = 0;
  std::vector<std::string> then_ops, then_outputs;
};

Written written(const onnx::ModelProto &m) {
  Written w;
  for (const auto &n : m.graph().node()) {
    w.wheres += n.op_type() == "Where";
    if (n.op_type() != "If")
      continue;
    ++w.ifs;
    for (const auto &a : n.attribute())
      if (a.name() == "then_branch")
        for (const auto &inner : a.g().node()) {
          w.then_ops.push_back(inner.op_type());
          w.then_outputs.insert(w.then_outputs.end(), inner.output().begin(),
                                inner.output().end());
        }
  }
  return w;
}

/// The outputs of `m` on x, and those of its export imported again.
void expect_same_after_export(const Model &m, const onnx::ModelProto &out) {
  const Model back = import_onnx_bytes(out.SerializeAsString(), "back.onnx");
  for (const std::vector<float> &x :
       {std::vector<float>{1, -2, 3}, std::vector<float>{-1, -2, 1}}) {
    Bindings<float> a{{"x", Tensor<float>(Shape{3}, x)}},
        b{{"x", Tensor<float>(Shape{3}, x)}};
    for (const auto &[name, t] : m.weights)
      a.emplace(name, t);
    for (const auto &[name, t] : back.weights)
      b.emplace(name, t);
    EXPECT_EQ(evaluate(FloatDomain{}, back.graph, b),
              evaluate(FloatDomain{}, m.graph, a));
  }
}

/// `onnx` imported and exported: what the export holds, once checked to
/// compute what the import does.
Written exported(const OnnxModel &onnx) {
  const Model m = import_onnx_bytes(onnx.bytes(), "ifs.onnx");
  onnx::ModelProto out;
  EXPECT_TRUE(out.ParseFromString(export_onnx_bytes(m)));
  expect_same_after_export(m, out);
  return written(out);
}

TEST(OnnxExportBranches, AnIfImportWroteAsAWhereGoesOutAsAnIf) {
  const Written w = exported(choices({{{"Relu", "Neg", "x"}}}));
  EXPECT_EQ(w.ifs, 1);
  EXPECT_EQ(w.wheres, 0);
  EXPECT_EQ(w.then_ops, std::vector<std::string>{"Relu"});
  // The branch's value has the name it came in with.
  EXPECT_EQ(w.then_outputs, std::vector<std::string>{"y0_then"});
}

TEST(OnnxExportBranches, AConditionOfOneValueGoesOutUnderTheModelsNames) {
  // A condition of shape [1], as exporters write one: import reshapes it
  // to the scalar Where reads, and that value goes out named after it.
  OnnxModel m;
  m.input("x", {3}).output("y");
  set_int(m.node("ReduceSum", {"x"}, {"s"}), "keepdims", 1);
  m.floats("zero", {1}, {0});
  m.node("Greater", {"s", "zero"}, {"cond"});
  auto &n = m.node("If", {"cond"}, {"y"});
  add_branch(n, "then_branch", "Relu", "x", {3}, "y_then");
  add_branch(n, "else_branch", "Neg", "x", {3}, "y_else");
  const Model imported = import_onnx_bytes(m.bytes(), "if1.onnx");
  onnx::ModelProto out;
  ASSERT_TRUE(out.ParseFromString(export_onnx_bytes(imported)));
  expect_same_after_export(imported, out);
  EXPECT_EQ(written(out).ifs, 1);
  const std::regex quarrys("t[0-9]+(_.*)?");
  for (const auto &node : out.graph().node())
    for (const auto &name : node.output())
      EXPECT_FALSE(std::regex_match(name, quarrys)) << name;
  for (const auto &t : out.graph().initializer())
    EXPECT_FALSE(std::regex_match(t.name(), quarrys)) << t.name();
}

TEST(OnnxExportBranches, ChoicesOnOneConditionAreOneIf) {
  const Written w =
      exported(choices({{{"Relu", "Neg", "x"}}, {{"Sigmoid", "Tanh", "x"}}}));
  EXPECT_EQ(w.ifs, 1);
  EXPECT_EQ(w.wheres, 0);
  EXPECT_EQ(w.then_ops, (std::vector<std::string>{"Relu", "Sigmoid"}));
}

TEST(OnnxExportBranches, ChoicesANodeBetweenReadsStayWheres) {
  // z0 = Abs(y0) stands between the two choices and reads the first, and
  // the second's branches read z0: one If could stand at neither place.
  const Written w = exported(
      choices({{{"Relu", "Neg", "x"}}, {{"Sigmoid", "Tanh", "z0"}}}, "Abs"));
  EXPECT_EQ(w.ifs, 0);
  EXPECT_EQ(w.wheres, 2);
}

} // namespace
} // namespace quarry
