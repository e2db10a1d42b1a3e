//===- onnx_interface_test.cc - Export keeps the imported interface -------===//
//
// An application feeds and reads a model by its inputs' and outputs' names
// and relies on its opset and metadata: a model imported and exported again
// (rewritten or not) keeps them, whatever names quarry's text form needed.
//
//===----------------------------------------------------------------------===//
#include "onnx_builder.h"
#include "without_records.h"

#include "quarry/core/file_io.h"
#include "quarry/core/text.h"
#include "quarry/models/onnx.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace quarry {
namespace {

using namespace quarry::testing;

onnx::ModelProto round_trip(const OnnxModel &m) {
  onnx::ModelProto out;
  EXPECT_TRUE(out.ParseFromString(
      export_onnx_bytes(import_onnx_bytes(m.bytes(), "m.onnx"))));
  return out;
}

std::vector<std::string>
names(const google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> &vs) {
  std::vector<std::string> out;
  for (const auto &v : vs)
    out.push_back(v.name());
  return out;
}

int64_t onnx_opset(const onnx::ModelProto &m) {
  for (const auto &op : m.opset_import())
    if (op.domain().empty() || op.domain() == "ai.onnx")
      return op.version();
  return 0;
}

TEST(OnnxInterface, OutputsOfNoFixedShapeGoOutDeclaredWithoutOne) {
  // What follows a NonZero has no fixed shape: the output is declared
  // without one, as the model declared it, though ONNX's checker asks
  // every graph output for a shape.
  OnnxModel m(13);
  m.input("x", {4}).output("y");
  m.node("Relu", {"x"}, {"r"});
  m.node("NonZero", {"r"}, {"i"});
  set_int(m.node("Cast", {"i"}, {"y"}), "to", onnx::TensorProto::FLOAT);
  const std::string in = m.bytes();
  const std::string out = export_onnx_bytes(import_onnx_bytes(in, "nz.onnx"));
  onnx::ModelProto back;
  ASSERT_TRUE(back.ParseFromString(out));
  ASSERT_EQ(back.graph().output_size(), 1);
  EXPECT_FALSE(back.graph().output(0).type().tensor_type().has_shape());
  EXPECT_EQ(interface_differences(in, out), std::vector<std::string>{});
}

TEST(OnnxInterface, NamesQuarrysTextFormCannotHoldComeBack) {
  // "input" is a keyword of the text form, "x:0" no identifier, "3d" starts
  // with a digit: quarry respells them inside, export gives them back.
  OnnxModel m(16);
  m.input("input", {2, 3}).input("x:0", {2, 3}).input("3d", {2, 3});
  m.output("logits:0").output("output");
  m.node("Add", {"input", "x:0"}, {"s"});
  m.node("Relu", {"s"}, {"logits:0"});
  m.node("Mul", {"s", "3d"}, {"output"});
  const onnx::ModelProto out = round_trip(m);
  EXPECT_EQ(names(out.graph().input()),
            (std::vector<std::string>{"input", "x:0", "3d"}));
  EXPECT_EQ(names(out.graph().output()),
            (std::vector<std::string>{"logits:0", "output"}));
  EXPECT_EQ(onnx_opset(out), 16);
}

TEST(OnnxInterface, OutputsThatAreOneValueOrAnInputEachKeepTheirName) {
  OnnxModel m;
  m.input("x", {4}).input("unused", {2}).output("a").output("b").output("c");
  m.node("Relu", {"x"}, {"a"});
  m.node("Identity", {"a"}, {"b"});
  m.node("Identity", {"x"}, {"c"});
  const onnx::ModelProto out = round_trip(m);
  // An input no node reads is still there to be fed.
  EXPECT_EQ(names(out.graph().input()),
            (std::vector<std::string>{"x", "unused"}));
  EXPECT_EQ(names(out.graph().output()),
            (std::vector<std::string>{"a", "b", "c"}));
  // And it imports again, to the same computation.
  const Model back = import_onnx_bytes(out.SerializeAsString(), "back.onnx");
  EXPECT_EQ(back.graph.outputs().size(), 3u);
}

TEST(OnnxInterface, MetadataAndDocStringsStay) {
  OnnxModel m(15);
  m.input("x", {4}).output("y");
  m.node("Sigmoid", {"x"}, {"y"});
  m.proto().set_producer_name("pytorch");
  m.proto().set_producer_version("2.11");
  m.proto().set_doc_string("a model");
  m.proto().set_model_version(3);
  auto *p = m.proto().add_metadata_props();
  p->set_key("labels");
  p->set_value("cat,dog");
  m.proto().mutable_graph()->set_doc_string("its graph");
  const onnx::ModelProto out = round_trip(m);
  EXPECT_EQ(out.producer_name(), "pytorch");
  EXPECT_EQ(out.producer_version(), "2.11");
  EXPECT_EQ(out.doc_string(), "a model");
  EXPECT_EQ(out.model_version(), 3);
  ASSERT_EQ(out.metadata_props_size(), 1);
  EXPECT_EQ(out.metadata_props(0).value(), "cat,dog");
  EXPECT_EQ(out.graph().name(), "test");
  EXPECT_EQ(out.graph().doc_string(), "its graph");
  EXPECT_EQ(onnx_opset(out), 15);
}

TEST(OnnxInterface, OperatorDifferencesCountEachOperatorButIdentity) {
  OnnxModel a;
  a.input("x", {4}).output("y");
  a.node("Relu", {"x"}, {"r"});
  a.node("Add", {"r", "x"}, {"s"});
  a.node("Identity", {"s"}, {"y"});
  OnnxModel b;
  b.input("x", {4}).output("y");
  b.node("Relu", {"x"}, {"r"});
  b.node("Relu", {"r"}, {"s"});
  set_int(b.node("Cast", {"s"}, {"y"}), "to", onnx::TensorProto::FLOAT);
  EXPECT_EQ(operator_differences(a.bytes(), b.bytes()),
            (std::vector<std::string>{"Add: 0, not 1", "Cast: 1, not 0",
                                      "Relu: 2, not 1"}));
  EXPECT_EQ(operator_differences(a.bytes(), a.bytes()),
            std::vector<std::string>{});
}

TEST(OnnxInterface, AnEarlierOpsetStaysWhereQuarrysNodesCanBeSaidThere) {
  // quarry writes its nodes in their opset-14 forms: Relu and Reshape
  // (allowzero unset) mean the same at 11.
  OnnxModel m(11);
  m.input("x", {2, 3}).output("y").ints("shape", {3, 2});
  m.node("Relu", {"x"}, {"r"});
  m.node("Reshape", {"r", "shape"}, {"y"});
  EXPECT_EQ(onnx_opset(round_trip(m)), 11);
  // Softmax flattened from its axis before 13: import writes that out
  // (a reshape around a softmax over the last axis), and over the last
  // axis both meanings agree, so it goes out at 11 too.
  OnnxModel s(11);
  s.input("x", {2, 3, 4}).output("y");
  s.node("Softmax", {"x"}, {"y"});
  const onnx::ModelProto out = round_trip(s);
  EXPECT_EQ(onnx_opset(out), 11);
  for (const auto &n : out.graph().node()) {
    if (n.op_type() != "Softmax")
      continue;
    for (const auto &a : n.attribute()) {
      if (a.name() == "axis") {
        EXPECT_EQ(a.i(), 1); // the last axis of the flattened [2,12]
      }
    }
  }
}

TEST(OnnxInterface, LayerNormalizationStaysOneNode) {
  OnnxModel m(17);
  m.input("x", {2, 8}).output("y");
  m.floats("s", {8}, std::vector<float>(8, 0.5f));
  m.floats("b", {8}, std::vector<float>(8, 0.25f));
  m.node("LayerNormalization", {"x", "s", "b"}, {"y"});
  const onnx::ModelProto out = round_trip(m);
  ASSERT_EQ(out.graph().node_size(), 1);
  EXPECT_EQ(out.graph().node(0).op_type(), "LayerNormalization");
  EXPECT_EQ(onnx_opset(out), 17);
  // Its statistics asked for too: import computes them with ONNX's
  // function body, and export writes the node back as it was.
  OnnxModel stats(17);
  stats.input("x", {2, 8}).output("y").output("mean");
  stats.floats("s", {8}, std::vector<float>(8, 0.5f));
  stats.node("LayerNormalization", {"x", "s"}, {"y", "mean"});
  const onnx::ModelProto whole = round_trip(stats);
  ASSERT_EQ(whole.graph().node_size(), 1);
  EXPECT_EQ(whole.graph().node(0).op_type(), "LayerNormalization");
  EXPECT_EQ(names(whole.graph().output()),
            (std::vector<std::string>{"y", "mean"}));
}

TEST(OnnxInterface, QuarrysReshapeCopiesTheExtentsItKeeps) {
  // In quarry's forms (as a rewrite writes them) a reshape keeps what it
  // can of the model's freedom: 0 where an axis keeps its extent, -1 for
  // the largest other, so that it holds at another batch or length.
  const std::vector<std::pair<Ints, Ints>> cases = {{{2, 3, 4}, {0, -1}},
                                                    {{1, 1280}, {0, 1, 1, -1}}};
  for (const auto &[dims, want] : cases) {
    OnnxModel m;
    m.input("x", dims).output("y");
    m.ints("shape", dims.size() == 3 ? Ints{2, 12} : Ints{1, 1, 1, 1280});
    m.node("Reshape", {"x", "shape"}, {"r"});
    m.node("Relu", {"r"}, {"y"});
    onnx::ModelProto out;
    ASSERT_TRUE(out.ParseFromString(export_onnx_bytes(
        without_records(import_onnx_bytes(m.bytes(), "m.onnx")))));
    const onnx::NodeProto *reshape = nullptr;
    for (const auto &n : out.graph().node())
      if (n.op_type() == "Reshape")
        reshape = &n;
    ASSERT_NE(reshape, nullptr);
    const onnx::TensorProto *target = nullptr;
    for (const auto &t : out.graph().initializer())
      if (t.name() == reshape->input(1))
        target = &t;
    ASSERT_NE(target, nullptr);
    EXPECT_EQ(Ints(target->int64_data().begin(), target->int64_data().end()),
              want);
  }
}

TEST(OnnxInterface, AModelBuiltInQuarryIsNamedByQuarry) {
  Model m{parse_graph("input x: [4]\ny = relu(x)\noutput y\n"), {}};
  onnx::ModelProto out;
  ASSERT_TRUE(out.ParseFromString(export_onnx_bytes(m)));
  EXPECT_EQ(out.producer_name(), "quarry");
  EXPECT_EQ(names(out.graph().input()), std::vector<std::string>{"x"});
}

// Every model of ONNX's backend test cases that quarry imports goes out
// with the interface it came in with. The opset is the one exception:
// where one of quarry's nodes has no form of the same meaning at the
// model's opset (a broadcasting Add at opset 6, which needs `broadcast`;
// a kept Resize of 11 converted on), the export's is later. That happens
// only to models written before opset 12.
TEST(OnnxInterface, EveryOnnxTestModelKeepsItsInterface) {
  const std::string root = "/usr/share/libonnx-testdata/data";
  if (!std::filesystem::exists(root))
    GTEST_SKIP() << "no " << root << " (Debian's libonnx-testdata)";
  int compared = 0, raised = 0;
  std::vector<std::string> differing;
  for (const char *suite :
       {"node", "simple", "pytorch-converted", "pytorch-operator"}) {
    if (!std::filesystem::exists(root + "/" + suite))
      continue;
    for (const auto &dir :
         std::filesystem::directory_iterator(root + "/" + suite)) {
      const std::string file = (dir.path() / "model.onnx").string();
      if (!std::filesystem::exists(file))
        continue;
      const std::string bytes = read_file_bytes(file);
      std::string out;
      try {
        out = export_onnx_bytes(import_onnx_bytes(bytes, file));
      } catch (const Error &) {
        continue; // refused, for a reason conformance lists
      }
      ++compared;
      onnx::ModelProto in;
      ASSERT_TRUE(in.ParseFromString(bytes));
      for (const std::string &d : interface_differences(bytes, out)) {
        if (d.rfind("opset ", 0) == 0 && onnx_opset(in) < 12) {
          ++raised;
          continue;
        }
        differing.push_back(dir.path().filename().string() + ": " + d);
      }
    }
  }
  EXPECT_GT(compared, 900);
  RecordProperty("compared", compared);
  RecordProperty("opset_raised", raised);
  EXPECT_TRUE(differing.empty()) << differing.size() << " differences";
  for (size_t i = 0; i < differing.size() && i < 40; ++i)
    ADD_FAILURE() << differing[i];
}

} // namespace
} // namespace quarry
