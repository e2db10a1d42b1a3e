//===- onnx_kept_test.cc - Nodes quarry keeps as they are -----------------===//
//
// A node quarry cannot express (an unknown operator, control flow, integer
// tensors) imports as an opaque operator, typed by ONNX shape inference;
// export writes the original node back, reading what quarry's graph
// computes. An If on a constant takes its branch instead.
//
//===----------------------------------------------------------------------===//
#include "onnx_builder.h"
#include "without_records.h"

#include "quarry/core/evaluate.h"
#include "quarry/core/file_io.h"
#include "quarry/core/float_domain.h"
#include "quarry/core/text.h"
#include "quarry/models/model_file.h"
#include "quarry/models/onnx_stages.h"
#include "quarry/testing/error_of.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include <unistd.h>

namespace quarry {
namespace {

using namespace quarry::testing;

int count_opaque(const Graph &g) {
  int n = 0;
  for (const Node &node : g.nodes())
    n += node.kind == OpKind::Opaque;
  return n;
}

/// relu(x) -> LpNormalization (quarry has none) -> relu.
OnnxModel lp_norm_model() {
  OnnxModel m;
  m.input("x", {2, 3}).output("y");
  m.node("Relu", {"x"}, {"r"});
  set_int(m.node("LpNormalization", {"r"}, {"e"}), "axis", 1);
  m.node("Relu", {"e"}, {"y"});
  return m;
}

/// y = If(Cast(flag, BOOL)) { relu(r) } else { neg(r) }, r = sigmoid(x):
/// an integer input, a node reading it, and branches reading `r` from
/// the main graph.
OnnxModel branch_model() {
  OnnxModel m;
  m.input("x", {2, 3}).input("flag", {}, onnx::TensorProto::INT64);
  m.output("y");
  m.node("Sigmoid", {"x"}, {"r"});
  set_int(m.node("Cast", {"flag"}, {"cond"}), "to", onnx::TensorProto::BOOL);
  auto &n = m.node("If", {"cond"}, {"y"});
  add_branch(n, "then_branch", "Relu", "r", {2, 3});
  add_branch(n, "else_branch", "Neg", "r", {2, 3});
  return m;
}

TEST(OnnxKept, AnUnknownOperatorIsKeptAndWrittenBack) {
  const Model m = import_onnx_bytes(lp_norm_model().bytes(), "h.onnx");
  EXPECT_EQ(count_opaque(m.graph), 1);
  EXPECT_EQ(kept_operator_types(m),
            std::vector<std::string>{"LpNormalization"});
  // ONNX shape inference typed its output.
  EXPECT_EQ(m.graph.type(m.graph.outputs()[0])->shape, (Shape{2, 3}));

  onnx::ModelProto out;
  ASSERT_TRUE(out.ParseFromString(export_onnx_bytes(m)));
  const onnx::NodeProto *kept = nullptr;
  for (const auto &n : out.graph().node())
    if (n.op_type() == "LpNormalization")
      kept = &n;
  ASSERT_NE(kept, nullptr);
  ASSERT_EQ(kept->attribute_size(), 1); // quarry's own note dropped
  EXPECT_EQ(kept->attribute(0).i(), 1);
  // It reads the exported relu, and the exported relu reads it.
  bool read = false;
  for (const auto &n : out.graph().node())
    if (n.op_type() == "Relu") {
      read = read || n.input(0) == kept->output(0);
      if (n.output(0) != out.graph().output(0).name()) {
        EXPECT_EQ(n.output(0), kept->input(0));
      }
    }
  EXPECT_TRUE(read);
  // And it imports again the same.
  const Model back = import_onnx_bytes(out.SerializeAsString(), "back.onnx");
  EXPECT_EQ(count_opaque(back.graph), 1);
}

TEST(OnnxKept, ControlFlowAndIntegerInputsAreKept) {
  const Model m = import_onnx_bytes(branch_model().bytes(), "b.onnx");
  EXPECT_EQ(kept_operator_types(m), (std::vector<std::string>{"Cast", "If"}));
  EXPECT_EQ(m.graph.type(m.graph.outputs()[0])->shape, (Shape{2, 3}));
  // The If reads its condition and, for its branches, r.
  const Node &branch = m.graph.node(m.graph.outputs()[0].node);
  ASSERT_EQ(branch.inputs.size(), 2u);
  EXPECT_EQ(m.graph.node(branch.inputs[1].node).kind, OpKind::Sigmoid);
  // Nothing runs it: evaluation names the operator.
  EXPECT_THROW(
      evaluate(FloatDomain{}, m.graph, bind_variables(m.graph, m.weights, 1)),
      Error);

  onnx::ModelProto out;
  ASSERT_TRUE(out.ParseFromString(export_onnx_bytes(m)));
  // flag is int64 again; the Sigmoid computes r under the name the
  // branches read it by, with no Identity to name it.
  for (const auto &in : out.graph().input())
    EXPECT_EQ(in.type().tensor_type().elem_type(),
              in.name() == "flag" ? onnx::TensorProto::INT64
                                  : onnx::TensorProto::FLOAT);
  std::vector<std::string> computing_r;
  for (const auto &n : out.graph().node())
    if (n.output_size() && n.output(0) == "r")
      computing_r.push_back(n.op_type());
  EXPECT_EQ(computing_r, std::vector<std::string>{"Sigmoid"});
  const Model back = import_onnx_bytes(out.SerializeAsString(), "back.onnx");
  EXPECT_EQ(kept_operator_types(back),
            (std::vector<std::string>{"Cast", "If"}));
}

TEST(OnnxKept, AConstantConditionTakesItsBranch) {
  for (const auto &[flag, want] : {std::pair{"1", 0.5f}, {"0", -0.5f}}) {
    OnnxImportOptions o;
    o.input_values.insert(parse_input_value(std::string("flag=") + flag));
    const Model m = import_onnx_bytes(branch_model().bytes(), "b.onnx", o);
    EXPECT_EQ(count_opaque(m.graph), 0);
    Bindings<float> b;
    b.emplace("x", Tensor<float>(Shape{2, 3}, 0.0f));
    const auto y = evaluate(FloatDomain{}, m.graph, b);
    EXPECT_FLOAT_EQ(y[0][0], want) << flag; // relu or neg of sigmoid(0)
  }
}

TEST(OnnxKept, AComputedCastToIntegersIsKeptNotRefused) {
  // Cast's handler refuses integers; the node is kept, and so is what
  // reads its result.
  OnnxModel m;
  m.input("x", {4}).output("y");
  set_int(m.node("Cast", {"x"}, {"i"}), "to", onnx::TensorProto::INT64);
  set_int(m.node("Cast", {"i"}, {"f"}), "to", onnx::TensorProto::FLOAT);
  m.node("Relu", {"f"}, {"y"});
  const Model g = import_onnx_bytes(m.bytes(), "c.onnx");
  EXPECT_EQ(kept_operator_types(g), (std::vector<std::string>{"Cast", "Cast"}));
  EXPECT_EQ(g.graph.node(g.graph.outputs()[0].node).kind, OpKind::Relu);
  export_onnx_bytes(g); // passes the checker
}

TEST(OnnxKept, SavedGraphsKeepTheirKeptNodes) {
  const Model m = import_onnx_bytes(branch_model().bytes(), "b.onnx");
  const auto dir = std::filesystem::temp_directory_path() /
                   ("quarry_kept_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string qg = (dir / "b.qg").string();
  save_model(m, qg);
  ASSERT_TRUE(std::filesystem::exists(kept_path(qg)));
  const Model back = load_graph_any(qg);
  EXPECT_EQ(back.kept_onnx, m.kept_onnx);
  EXPECT_TRUE(structurally_equal(back.graph, m.graph));
  const Model again = import_onnx_bytes(export_onnx_bytes(back), "again.onnx");
  EXPECT_EQ(kept_operator_types(again), kept_operator_types(m));
  // A corrupt kept file is one clear error naming it.
  write_file_atomic(kept_path(qg), "not a model");
  const std::string msg = error_of([&] { load_graph_any(qg); });
  EXPECT_EQ(msg.rfind(kept_path(qg) + ": ", 0), 0u) << msg;
  std::filesystem::remove_all(dir);
}

/// z = sigmoid(x); nz = NonZero(relu(x)), whose length depends on the
/// values; y = transpose(nz); q = sum(shape(nz)) * z.
OnnxModel nonzero_model() {
  OnnxModel m;
  m.input("x", {2, 3});
  m.node("Relu", {"x"}, {"r"});
  m.node("NonZero", {"r"}, {"nz"}).set_name("nz");
  m.node("Transpose", {"nz"}, {"y"});
  m.node("Sigmoid", {"x"}, {"z"});
  m.node("Shape", {"nz"}, {"s"});
  set_int(m.node("Cast", {"s"}, {"sf"}), "to", onnx::TensorProto::FLOAT);
  set_int(m.node("ReduceSum", {"sf"}, {"w"}), "keepdims", 0);
  m.node("Mul", {"w", "z"}, {"q"});
  auto *outputs = m.proto().mutable_graph();
  OnnxModel::value(outputs->add_output(), "y", {0, 2},
                   onnx::TensorProto::INT64);
  m.output("z");
  OnnxModel::value(outputs->add_output(), "q", {2, 3});
  return m;
}

TEST(OnnxKept, WhatFollowsAValueOfNoFixedShapeIsKeptAsOnnx) {
  const Model m = import_onnx_bytes(nonzero_model().bytes(), "nz.onnx");
  // NonZero and all that reads it, transitively, stay ONNX after the graph.
  EXPECT_EQ(count_opaque(m.graph), 0);
  EXPECT_EQ(kept_operator_types(m),
            (std::vector<std::string>{"NonZero", "Transpose", "Shape", "Cast",
                                      "ReduceSum", "Mul"}));
  EXPECT_EQ(unrunnable_reason(m),
            "node 'nz' (NonZero) is kept from the imported model as it is "
            "(quarry has no NonZero; the shapes of its outputs are not "
            "fixed, nor those of the 5 nodes after it); quarry cannot run "
            "it");
  // The graph computes z, the model output outside the tail, then what
  // the tail reads: r and z.
  ASSERT_EQ(m.graph.outputs().size(), 3u);
  EXPECT_EQ(m.graph.node(m.graph.outputs()[0].node).kind, OpKind::Sigmoid);
  EXPECT_EQ(m.graph.node(m.graph.outputs()[1].node).kind, OpKind::Relu);
  EXPECT_EQ(m.graph.outputs()[2], m.graph.outputs()[0]);

  onnx::ModelProto out;
  ASSERT_TRUE(out.ParseFromString(export_onnx_bytes(m)));
  // The model's outputs in their order: y and q from the tail as declared.
  ASSERT_EQ(out.graph().output_size(), 3);
  EXPECT_EQ(out.graph().output(0).name(), "y");
  EXPECT_EQ(out.graph().output(0).type().tensor_type().elem_type(),
            onnx::TensorProto::INT64);
  EXPECT_EQ(out.graph().output(2).name(), "q");
  // The tail reads r and z under their own names: the Relu computes r
  // under it; z, a graph output too, is given it by an Identity.
  std::set<std::string> renamed;
  const onnx::NodeProto *nz = nullptr;
  std::string computing_r;
  for (const auto &n : out.graph().node()) {
    if (n.op_type() == "Identity")
      renamed.insert(n.output(0));
    if (n.op_type() == "NonZero")
      nz = &n;
    if (n.output(0) == "r")
      computing_r = n.op_type();
  }
  EXPECT_EQ(renamed, (std::set<std::string>{"z"}));
  EXPECT_EQ(computing_r, "Relu");
  ASSERT_NE(nz, nullptr);
  EXPECT_EQ(nz->input(0), "r");
  // It imports again the same, and a saved graph keeps its tail.
  const Model back = import_onnx_bytes(out.SerializeAsString(), "back.onnx");
  EXPECT_EQ(kept_operator_types(back), kept_operator_types(m));
  const auto dir = std::filesystem::temp_directory_path() /
                   ("quarry_tail_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string qg = (dir / "nz.qg").string();
  save_model(m, qg);
  const Model loaded = load_graph_any(qg);
  EXPECT_EQ(export_onnx_bytes(loaded), export_onnx_bytes(m));
  std::filesystem::remove_all(dir);
}

TEST(OnnxKept, TheModelsOutputsAreNamedAndTypedAsItDeclaredThem) {
  const Model m = import_onnx_bytes(nonzero_model().bytes(), "nz.onnx");
  const KeptOnnx kept(m, "nz.onnx");
  EXPECT_EQ(kept.model_output_names(),
            (std::vector<std::string>{"y", "z", "q"}));
  EXPECT_EQ(
      kept.model_output_elems(),
      (std::vector<int32_t>{onnx::TensorProto::INT64, onnx::TensorProto::FLOAT,
                            onnx::TensorProto::FLOAT}));
}

TEST(OnnxKept, AGraphInputThatIsNoTensorIsReadByTheTail) {
  OnnxModel m;
  m.input("x", {2, 3}).output("y");
  auto *seq = m.proto().mutable_graph()->add_input();
  seq->set_name("s");
  seq->mutable_type()
      ->mutable_sequence_type()
      ->mutable_elem_type()
      ->mutable_tensor_type()
      ->set_elem_type(onnx::TensorProto::FLOAT);
  m.node("Relu", {"x"}, {"y"});
  m.node("SequenceLength", {"s"}, {"n"});
  OnnxModel::value(m.proto().mutable_graph()->add_output(), "n", {},
                   onnx::TensorProto::INT64);
  const Model g = import_onnx_bytes(m.bytes(), "seq.onnx");
  EXPECT_EQ(kept_operator_types(g), std::vector<std::string>{"SequenceLength"});
  ASSERT_EQ(g.graph.outputs().size(), 1u); // the tail reads nothing here
  onnx::ModelProto out;
  ASSERT_TRUE(out.ParseFromString(export_onnx_bytes(g)));
  ASSERT_EQ(out.graph().input_size(), 2);
  EXPECT_EQ(out.graph().input(1).name(), "s");
  EXPECT_TRUE(out.graph().input(1).type().has_sequence_type());
  ASSERT_EQ(out.graph().output_size(), 2);
  EXPECT_EQ(out.graph().output(1).name(), "n");
  // --input-shape cannot fix what is not a tensor.
  OnnxImportOptions o;
  o.input_shapes.insert(parse_input_shape("s=2"));
  EXPECT_EQ(error_of([&] { import_onnx_bytes(m.bytes(), "seq.onnx", o); }),
            "seq.onnx: --input-shape names 's', which is not a tensor");
}

TEST(OnnxKept, ATailNodeReadingNothingDefinedIsRefusedNamingIt) {
  OnnxModel m = nonzero_model();
  auto &bad = m.node("Concat", {"nz", "ghost"}, {"c"});
  bad.set_name("cat");
  set_int(bad, "axis", 0);
  EXPECT_EQ(error_of([&] { import_onnx_bytes(m.bytes(), "g.onnx"); }),
            "g.onnx: node 'cat' (Concat): quarry keeps this node as it is (it "
            "reads a value whose shape is not fixed), but cannot: it reads "
            "'ghost', which no earlier node defines");
}

/// A TopK, which quarry has not, at opset 9 (k an attribute), reading x
/// through a Relu when `relu`.
OnnxModel topk_at_opset9(bool relu) {
  OnnxModel m(9);
  m.input("x", {1, 5}).output("y");
  if (relu)
    m.node("Relu", {"x"}, {"r"});
  auto &topk = m.node("TopK", {relu ? "r" : "x"}, {"y", "i"});
  set_int(topk, "k", 2);
  return m;
}

TEST(OnnxKept, AKeptNodeWhoseOperatorChangedIsConvertedToTheExportsOpset) {
  // TopK takes k as an attribute at opset 9 and as an input from 10: where
  // quarry's operators raise the opset (the Relu in quarry's forms, as a
  // rewrite writes it), ONNX's version converter writes the later form,
  // which imports again (kept again).
  const Model g = without_records(
      import_onnx_bytes(topk_at_opset9(true).bytes(), "topk.onnx"));
  EXPECT_EQ(kept_operator_types(g), std::vector<std::string>{"TopK"});
  onnx::ModelProto out;
  ASSERT_TRUE(out.ParseFromString(export_onnx_bytes(g)));
  EXPECT_EQ(out.opset_import(0).version(), 14);
  int topks = 0;
  for (const auto &n : out.graph().node())
    if (n.op_type() == "TopK") {
      ++topks;
      EXPECT_EQ(n.input_size(), 2); // k is an input
      for (const auto &a : n.attribute())
        EXPECT_NE(a.name(), "k");
    }
  EXPECT_EQ(topks, 1);
  const Model back = import_onnx_bytes(out.SerializeAsString(), "back.onnx");
  EXPECT_EQ(kept_operator_types(back), std::vector<std::string>{"TopK"});
}

TEST(OnnxKept, KeptNodesAloneGoOutAtTheModelsOpset) {
  // Nothing in quarry's forms needs a later opset: the TopK, and the Relu
  // written back as recorded, go out as the model wrote them.
  for (bool relu : {false, true}) {
    const Model g =
        import_onnx_bytes(topk_at_opset9(relu).bytes(), "topk.onnx");
    onnx::ModelProto out;
    ASSERT_TRUE(out.ParseFromString(export_onnx_bytes(g)));
    EXPECT_EQ(out.opset_import(0).version(), 9);
    const onnx::NodeProto &topk = out.graph().node(relu ? 1 : 0);
    EXPECT_EQ(topk.op_type(), "TopK");
    EXPECT_EQ(topk.input_size(), 1);
    ASSERT_EQ(topk.attribute_size(), 1);
    EXPECT_EQ(topk.attribute(0).name(), "k");
  }
}

/// A local function `name` of `domain` added to `m`: input t, output u,
/// ONNX's opset 17, no nodes yet.
onnx::FunctionProto &add_function(OnnxModel &m, const std::string &name,
                                  const std::string &domain) {
  onnx::FunctionProto &f = *m.proto().add_functions();
  f.set_name(name);
  f.set_domain(domain);
  f.add_input("t");
  f.add_output("u");
  auto *op = f.add_opset_import();
  op->set_domain("");
  op->set_version(17);
  return f;
}

/// A node `op` of `f`'s body reading `in`, computing `out`.
onnx::NodeProto &add_body_node(onnx::FunctionProto &f, const std::string &op,
                               const std::string &in, const std::string &out) {
  onnx::NodeProto &n = *f.add_node();
  n.set_op_type(op);
  n.add_input(in);
  n.add_output(out);
  return n;
}

/// x -> Relu -> custom MyAct (a local function: Neg, Relu) -> y, the
/// function in `domain`.
OnnxModel calling_a_local_function(const std::string &domain) {
  OnnxModel m(17);
  auto *op = m.proto().add_opset_import();
  op->set_domain(domain);
  op->set_version(1);
  m.input("x", {2, 3});
  OnnxModel::value(m.proto().mutable_graph()->add_output(), "y", {2, 3});
  m.node("Relu", {"x"}, {"a"});
  m.node("MyAct", {"a"}, {"y"}).set_domain(domain);
  onnx::FunctionProto &f = add_function(m, "MyAct", domain);
  add_body_node(f, "Neg", "t", "t2");
  add_body_node(f, "Relu", "t2", "u");
  return m;
}

TEST(OnnxKept, TheModelsLocalFunctionsGoOutWithTheNodesCallingThem) {
  const Model g =
      import_onnx_bytes(calling_a_local_function("custom").bytes(), "f.onnx");
  // Inlined: quarry's operators, nothing kept.
  EXPECT_TRUE(kept_operator_types(g).empty());
  Bindings<float> b;
  b["x"] = Tensor<float>(Shape{2, 3}, std::vector<float>{-2, -1, 0, 1, 2, 3});
  EXPECT_EQ(evaluate(FloatDomain{}, g.graph, b).at(0).data,
            (std::vector<float>{0, 0, 0, 0, 0, 0})); // relu(-relu(x))
  onnx::ModelProto out;
  ASSERT_TRUE(out.ParseFromString(export_onnx_bytes(g)));
  ASSERT_EQ(out.functions_size(), 1); // quarry's records stay behind
  EXPECT_EQ(out.functions(0).name(), "MyAct");
  EXPECT_EQ(out.functions(0).domain(), "custom");
  EXPECT_EQ(out.functions(0).node_size(), 2);
  // A function calling itself is refused, naming the call.
  OnnxModel loop = calling_a_local_function("custom");
  loop.proto().mutable_functions(0)->mutable_node(1)->set_op_type("MyAct");
  loop.proto().mutable_functions(0)->mutable_node(1)->set_domain("custom");
  EXPECT_EQ(error_of([&] { import_onnx_bytes(loop.bytes(), "f.onnx"); }),
            "f.onnx: node 'MyAct_y/1' (MyAct): calls local function 'MyAct' "
            "within itself, which ONNX does not allow");
  // A body past 2^18 nodes in all is refused before it is imported.
  OnnxModel big = calling_a_local_function("custom");
  onnx::FunctionProto &f = *big.proto().mutable_functions(0);
  const onnx::NodeProto relu = f.node(1);
  for (int k = 0; k < (1 << 18); ++k)
    *f.add_node() = relu;
  EXPECT_EQ(error_of([&] { import_onnx_bytes(big.bytes(), "f.onnx"); }),
            "f.onnx: node 'MyAct_y' (MyAct): inlining the model's local "
            "functions makes more than 262144 nodes (calls within calls)");
  // A model's function in quarry's domain for its records is refused.
  EXPECT_EQ(error_of([] {
              import_onnx_bytes(calling_a_local_function("quarry").bytes(),
                                "f.onnx");
            }),
            "f.onnx: local function 'MyAct' is of domain 'quarry', which "
            "quarry keeps for its own records");
}

TEST(OnnxKept, ALocalFunctionTakesItsCallsAttributesAndCallsAnother) {
  // Scaled(x) = LeakyRelu(Neg(x), alpha from the call), through Inner,
  // itself a function; the call sets alpha 0.5.
  OnnxModel m(17);
  auto *op = m.proto().add_opset_import();
  op->set_domain("local");
  op->set_version(1);
  m.input("x", {4});
  OnnxModel::value(m.proto().mutable_graph()->add_output(), "y", {4});
  auto &call = m.node("Scaled", {"x"}, {"y"});
  call.set_domain("local");
  set_float(call, "alpha", 0.5f);
  onnx::FunctionProto &inner = add_function(m, "Inner", "local");
  inner.add_attribute("alpha");
  auto *alpha = add_body_node(inner, "LeakyRelu", "t", "u").add_attribute();
  alpha->set_name("alpha");
  alpha->set_ref_attr_name("alpha");
  alpha->set_type(onnx::AttributeProto::FLOAT);
  onnx::FunctionProto &outer = add_function(m, "Scaled", "local");
  outer.add_attribute("alpha");
  add_body_node(outer, "Neg", "t", "n");
  onnx::NodeProto &in = add_body_node(outer, "Inner", "n", "u");
  in.set_domain("local");
  *in.add_attribute() = *alpha;
  const Model g = import_onnx_bytes(m.bytes(), "f.onnx");
  EXPECT_TRUE(kept_operator_types(g).empty());
  Bindings<float> b;
  b["x"] = Tensor<float>(Shape{4}, std::vector<float>{-2, -1, 1, 2});
  EXPECT_EQ(evaluate(FloatDomain{}, g.graph, b).at(0).data,
            (std::vector<float>{2, 1, -0.5f, -1}));
  // Out again: the call as the model wrote it, with both functions.
  onnx::ModelProto out;
  ASSERT_TRUE(out.ParseFromString(export_onnx_bytes(g)));
  ASSERT_EQ(out.graph().node_size(), 1);
  EXPECT_EQ(out.graph().node(0).op_type(), "Scaled");
  EXPECT_EQ(out.functions_size(), 2);
}

TEST(OnnxKept, AnUntypedTailIsConvertedToTheExportsOpset) {
  // Unsqueeze takes its axes as an input from opset 13 on.
  OnnxModel m(12);
  m.input("x", {2, 3});
  m.node("NonZero", {"x"}, {"nz"});
  set_ints(m.node("Unsqueeze", {"nz"}, {"y"}), "axes", {0});
  OnnxModel::value(m.proto().mutable_graph()->add_output(), "y", {1, 2, 0},
                   onnx::TensorProto::INT64);
  const Model g = import_onnx_bytes(m.bytes(), "u.onnx");
  EXPECT_EQ(kept_operator_types(g),
            (std::vector<std::string>{"NonZero", "Unsqueeze"}));
  onnx::ModelProto out;
  ASSERT_TRUE(out.ParseFromString(export_onnx_bytes(g)));
  const onnx::NodeProto *unsqueeze = nullptr;
  for (const auto &n : out.graph().node())
    if (n.op_type() == "Unsqueeze")
      unsqueeze = &n;
  ASSERT_NE(unsqueeze, nullptr);
  ASSERT_EQ(unsqueeze->input_size(), 2);
  EXPECT_EQ(unsqueeze->input(0), "nz");
  EXPECT_EQ(unsqueeze->output(0), "y");
  EXPECT_EQ(out.graph().output(0).name(), "y");
}

TEST(OnnxKept, AnIntegerOutputThatFoldsKeepsItsElementType) {
  // Shape folds to a constant; as a graph output it goes out int64 again,
  // cast from the float32 quarry holds.
  OnnxModel m;
  m.input("x", {2, 3});
  m.node("Shape", {"x"}, {"s"});
  OnnxModel::value(m.proto().mutable_graph()->add_output(), "s", {2},
                   onnx::TensorProto::INT64);
  const Model g = import_onnx_bytes(m.bytes(), "s.onnx");
  EXPECT_TRUE(kept_operator_types(g).empty());
  onnx::ModelProto out;
  ASSERT_TRUE(out.ParseFromString(export_onnx_bytes(g)));
  ASSERT_EQ(out.graph().output_size(), 1);
  EXPECT_EQ(out.graph().output(0).type().tensor_type().elem_type(),
            onnx::TensorProto::INT64);
  // Past 2^24 float32 is not exact: the constant is kept as it is.
  OnnxModel big;
  big.input("x", {2});
  big.ints("c", {int64_t{1} << 40});
  big.node("Identity", {"c"}, {"y"});
  OnnxModel::value(big.proto().mutable_graph()->add_output(), "y", {1},
                   onnx::TensorProto::INT64);
  const Model kept = import_onnx_bytes(big.bytes(), "big.onnx");
  EXPECT_EQ(kept_operator_types(kept), std::vector<std::string>{"Constant"});
  ASSERT_TRUE(out.ParseFromString(export_onnx_bytes(kept)));
  const onnx::TensorProto &value = out.graph().node(0).attribute(0).t();
  EXPECT_EQ(value.data_type(), onnx::TensorProto::INT64);
  ASSERT_EQ(value.int64_data_size(), 1);
  EXPECT_EQ(value.int64_data(0), int64_t{1} << 40);
}

TEST(OnnxKept, WhatTheOnnxCheckerRejectsIsRefused) {
  // Einsum without its equation; Concat of nothing (found by fuzzing:
  // handlers take the operand count the schema promises).
  OnnxModel einsum;
  einsum.input("x", {2, 3}).output("y");
  einsum.node("Einsum", {"x"}, {"y"}).set_name("mix");
  EXPECT_EQ(error_of([&] { import_onnx_bytes(einsum.bytes(), "m.onnx"); }),
            "m.onnx: node 'mix' (Einsum): the ONNX checker rejects it: "
            "Required attribute 'equation' is missing.");
  OnnxModel concat;
  concat.input("x", {2, 3}).output("y");
  concat.node("Relu", {"x"}, {"y"});
  concat.node("Concat", {}, {"z"}).set_name("none");
  const std::string msg =
      error_of([&] { import_onnx_bytes(concat.bytes(), "c.onnx"); });
  EXPECT_EQ(msg.rfind("c.onnx: node 'none' (Concat): the ONNX checker rejects "
                      "it: ",
                      0),
            0u)
      << msg;
}

TEST(OnnxKept, AMalformedSubgraphIsRefusedBeforeShapeInference) {
  // ONNX's shape inference trusts its input and crashed on a Scan whose
  // body named an unknown operator; the checker refuses such a node first.
  OnnxModel m = branch_model();
  for (auto &n : *m.proto().mutable_graph()->mutable_node())
    if (n.op_type() == "If")
      n.mutable_attribute(0)->mutable_g()->mutable_node(0)->set_op_type(
          "Relux");
  const std::string msg =
      error_of([&] { import_onnx_bytes(m.bytes(), "m.onnx"); });
  EXPECT_NE(msg.find("(If): the ONNX checker rejects it: "), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("Relux"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos);
}

TEST(OnnxKept, WindowsAndKernelsShapeInferenceCannotTakeAreRefused) {
  // ONNX 1.12's shape inference divides by strides and indexes W by X's
  // rank unchecked (found by fuzzing: a zero stride, a scalar kernel).
  // A 3-D LpPool, which quarry would keep: its handler's reason stands.
  OnnxModel pool;
  pool.input("x", {1, 1, 4, 4, 4}).output("y");
  auto &lp = pool.node("LpPool", {"x"}, {"y"});
  lp.set_name("lp");
  set_ints(lp, "kernel_shape", {2, 2, 2});
  set_ints(lp, "strides", {0, 1, 1});
  EXPECT_EQ(error_of([&] { import_onnx_bytes(pool.bytes(), "p.onnx"); }),
            "p.onnx: node 'lp' (LpPool): only 2-D pooling (NCHW) is "
            "supported, got [1,1,4,4,4]");

  // And LayerNormalization's axis, unchecked against X's rank.
  OnnxModel ln(17);
  ln.input("x", {}).output("y");
  ln.floats("w", {3, 4}, std::vector<float>(12, 1.0f));
  ln.node("LayerNormalization", {"x", "w"}, {"y"}).set_name("ln");
  const std::string ln_msg =
      error_of([&] { import_onnx_bytes(ln.bytes(), "l.onnx"); });
  EXPECT_EQ(ln_msg.rfind("l.onnx: node 'ln' (LayerNormalization): ", 0), 0u)
      << ln_msg;

  // And Gemm's operands, taken as matrices (opset 2: a 1-D B).
  OnnxModel gemm(2);
  gemm.input("a", {6, 3}).input("b", {6}).output("y");
  auto &g = gemm.node("Gemm", {"a", "b"}, {"y"});
  g.set_name("g");
  set_int(g, "transA", 1);
  const std::string gemm_msg =
      error_of([&] { import_onnx_bytes(gemm.bytes(), "g.onnx"); });
  EXPECT_EQ(gemm_msg.rfind("g.onnx: node 'g' (Gemm): ", 0), 0u) << gemm_msg;

  OnnxModel up;
  up.input("x", {1, 1, 4, 4}).output("y");
  up.floats("w", {}, {1});
  up.node("ConvTranspose", {"x", "w"}, {"y"}).set_name("up");
  const std::string msg =
      error_of([&] { import_onnx_bytes(up.bytes(), "u.onnx"); });
  EXPECT_EQ(msg.rfind("u.onnx: node 'up' (ConvTranspose): ", 0), 0u) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos);
}

} // namespace
} // namespace quarry

namespace quarry {
namespace {

using namespace quarry::testing;

TEST(OnnxKept, AKeptNodeIsNamedWithItsOperatorAndWhyItIsKept) {
  // A sample rate fed at run time: the Equal reading it is kept, and the
  // message says which input to fix and how.
  OnnxModel m(13);
  m.input("x", {2}).input("sr", {1}, onnx::TensorProto::INT64).output("y");
  m.ints("rate", {16000});
  m.node("Equal", {"sr", "rate"}, {"e"});
  set_int(m.node("Cast", {"e"}, {"f"}), "to", onnx::TensorProto::FLOAT);
  m.node("Mul", {"x", "f"}, {"y"});
  const Model g = import_onnx_bytes(m.bytes(), "vad.onnx");
  EXPECT_EQ(unrunnable_reason(g),
            "node 'Equal_e' (Equal) is kept from the imported model as it is "
            "(it reads graph input 'sr' of element type INT64; fix its value "
            "with --input-value sr=...); quarry cannot run it");
  // A handler's refusal is the reason, and export does not write it.
  OnnxModel c(13);
  c.input("x", {1, 1, 4, 4, 4}).output("y");
  c.floats("w", {1, 1, 2, 2, 2}, std::vector<float>(8, 1.0f));
  set_string(c.node("ConvTranspose", {"x", "w"}, {"y"}), "auto_pad",
             "SAME_MIDDLE");
  const Model conv = import_onnx_bytes(c.bytes(), "video.onnx");
  EXPECT_EQ(unrunnable_reason(conv),
            "node 'ConvTranspose_y' (ConvTranspose) is kept from the imported "
            "model as it is (auto_pad SAME_MIDDLE is not supported); quarry "
            "cannot run it");
  EXPECT_EQ(export_onnx_bytes(conv).find("quarry_kept_because"),
            std::string::npos);
  // A handler run as another node (CastLike as its Cast): its reason alone.
  OnnxModel like(15);
  like.input("x", {2}).output("y");
  auto *d = like.proto().mutable_graph()->add_initializer();
  d->set_name("d");
  d->set_data_type(onnx::TensorProto::DOUBLE);
  d->add_dims(1);
  d->add_double_data(1.0);
  like.node("CastLike", {"x", "d"}, {"y"});
  EXPECT_EQ(unrunnable_reason(import_onnx_bytes(like.bytes(), "like.onnx")),
            "node 'CastLike_y' (CastLike) is kept from the imported model as "
            "it is (Cast of a computed tensor to DOUBLE is not supported; "
            "quarry graphs hold float32); quarry cannot run it");
}

TEST(OnnxKept, ALongNodeNameIsShortenedInMessages) {
  // Exporters name nodes by their module paths, hundreds of characters.
  const std::string name = "/model/encoder/" + std::string(300, 'x') + "/Det";
  OnnxModel m(13);
  m.input("x", {2, 2}).output("y");
  m.node("Det", {"x"}, {"y"}).set_name(name);
  const std::string reason =
      unrunnable_reason(import_onnx_bytes(m.bytes(), "long.onnx"));
  EXPECT_EQ(reason.rfind("node '/model/encoder/" + std::string(21, 'x') +
                             "..." + std::string(32, 'x') +
                             "/Det' (Det) is kept",
                         0),
            0u)
      << reason;
  EXPECT_LT(reason.size(), 200u) << reason;
}

TEST(OnnxKept, TypesOfOnnxVersionsAfterTheOneReadAreNamedInMessages) {
  // float8 (ONNX 1.14) and int4 (1.16) have no names in ONNX 1.12's enum.
  for (const auto &[to, name] :
       std::vector<std::pair<int64_t, std::string>>{{17, "FLOAT8E4M3FN"},
                                                    {22, "INT4"},
                                                    {23, "FLOAT4E2M1"},
                                                    {99, "type 99"}}) {
    OnnxModel m(21);
    m.input("x", {2}).output("y");
    m.node("Relu", {"x"}, {"r"});
    set_int(m.node("Cast", {"r"}, {"y"}), "to", to);
    std::string message;
    try {
      message = unrunnable_reason(import_onnx_bytes(m.bytes(), "cast.onnx"));
    } catch (const Error &e) {
      message = e.what();
    }
    EXPECT_NE(message.find("Cast of a computed tensor to " + name +
                           " is not supported"),
              std::string::npos)
        << message;
  }
}

TEST(OnnxKept, ATileThatWouldNotFitIsKeptBeforeAnythingIsBuilt) {
  // Repeats a model computes (here constant) that no machine holds: the
  // node is kept saying so, without a copy made or memory exhausted.
  for (const auto &[repeats, why] :
       std::vector<std::pair<std::vector<int64_t>, std::string>>{
           {{int64_t{1} << 40},
            "repeats of 1099511627776 along one axis are "
            "more than 65536"},
           {{60000, 60000},
            "repeats ask for 14400000000.000000 elements, "
            "more than 2^31"}}) {
    OnnxModel m(13);
    m.input("x", {4, 1}).output("y");
    if (repeats.size() == 1) {
      m.input("z", {1}).output("t");
      m.ints("r1", repeats);
      m.node("Tile", {"z", "r1"}, {"t"});
      m.node("Relu", {"x"}, {"y"});
    } else {
      m.ints("r", repeats);
      m.node("Tile", {"x", "r"}, {"y"});
    }
    const Model g = import_onnx_bytes(m.bytes(), "tile.onnx");
    const std::string reason = unrunnable_reason(g);
    EXPECT_NE(reason.find("(Tile) is kept from the imported model as it is (" +
                          why + ")"),
              std::string::npos)
        << reason;
  }
}

} // namespace
} // namespace quarry
