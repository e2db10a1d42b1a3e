//===- rule_pack_io_test.cc - Rule packs: round trips and bad files -------===//
#include "quarry/rulepack/rule_pack_io.h"

#include "quarry/core/text.h"
#include "quarry/rulepack/graph_proto.h"
#include "test_files.h"

#include <gtest/gtest.h>

namespace quarry {
namespace {

using testing::error_of;
using testing::read_bytes;
using testing::ScratchDir;
using testing::write_bytes;

/// Rules touching every kind of attribute value, with full provenance.
RulePack sample_pack() {
  RulePack pack;
  pack.header.tool_version = "0.1.0";
  pack.header.settings = {{"max_ops", "3"}, {"domain", "gf61"}};
  pack.header.seed = 0x123456789abcdefULL;
  pack.header.description = "sample rules";
  pack.rules.push_back(parse_rule(
      "distribute",
      "input a\ninput b\ninput c\n"
      "y = ewadd(matmul(a, b), matmul(a, c))\noutput y\n",
      "input a\ninput b\ninput c\ny = matmul(a, ewadd(b, c))\noutput y\n"));
  Provenance &p = pack.rules.back().provenance;
  p.origin = "generated";
  p.status = ProofStatus::Proved;
  p.axioms = {"matmul_distributes", "ewadd_commutes"};
  p.prove_seconds = 0.25;
  p.prover = "z3";
  p.prover_details = "4.8.12";
  pack.rules.push_back(parse_rule(
      "split_concat",
      "input x\ninput y\np, q = split[axis=1](concat[axis=1](x, y))\n"
      "output q, p\n",
      "input x\ninput y\noutput y, x\n"));
  Provenance &q = pack.rules.back().provenance;
  q.origin = "taso-import";
  q.source_file = "graph_subst.pb";
  q.source_index = 7;
  pack.rules.push_back(parse_rule(
      "shapes_and_reals",
      "input x: [1,2,3,3]\nweight s: [2]\nweight b: [2]\nweight m: [2]\n"
      "weight v: [2]\ny = batchnorm[eps=0.001](x, s, b, m, v)\n"
      "z = transpose[perm=0,2,3,1 shuffle=1](y)\noutput z\n",
      "input x: [1,2,3,3]\nweight s: [2]\nweight b: [2]\nweight m: [2]\n"
      "weight v: [2]\n"
      "z = transpose[perm=0,2,3,1](batchnorm[eps=0.001](x, s, b, m, v))\n"
      "output z\n"));
  pack.rules.back().provenance.status = ProofStatus::Refuted;
  pack.rules.push_back(
      parse_rule("split_sizes",
                 "input x\na, b, c = split[axis=0 sizes=1,2,3](x)\noutput a\n",
                 "input x\na, b = split[axis=0 sizes=1,5](x)\noutput a\n"));
  pack.header.operators = operators_used(pack.rules);
  return pack;
}

void expect_same_pack(const RulePack &a, const RulePack &b) {
  EXPECT_EQ(a.header, b.header);
  ASSERT_EQ(a.rules.size(), b.rules.size());
  for (size_t i = 0; i < a.rules.size(); ++i) {
    SCOPED_TRACE(a.rules[i].name);
    EXPECT_EQ(a.rules[i].name, b.rules[i].name);
    EXPECT_TRUE(structurally_equal(a.rules[i].source, b.rules[i].source));
    EXPECT_TRUE(structurally_equal(a.rules[i].target, b.rules[i].target));
    EXPECT_EQ(print_graph(a.rules[i].source), print_graph(b.rules[i].source));
    EXPECT_EQ(a.rules[i].provenance, b.rules[i].provenance);
  }
}

TEST(RulePackIo, RoundTripsThroughAFile) {
  ScratchDir dir;
  const RulePack pack = sample_pack();
  const std::string path = dir.file("sample.pb");
  write_rule_pack(pack, path);
  expect_same_pack(pack, read_rule_pack(path));
  // Nothing but the pack is left in the directory (no temporary files).
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()),
                          std::filesystem::directory_iterator()),
            1);
}

TEST(RulePackIo, WritesTheSameBytesEveryTime) {
  ScratchDir dir;
  write_rule_pack(sample_pack(), dir.file("a.pb"));
  write_rule_pack(sample_pack(), dir.file("b.pb"));
  const std::string bytes = read_bytes(dir.file("a.pb"));
  EXPECT_EQ(bytes, read_bytes(dir.file("b.pb")));
  EXPECT_EQ(bytes, serialize_rule_pack(read_rule_pack(dir.file("a.pb"))));
  // Overwriting keeps the same content and leaves no temporary behind.
  write_rule_pack(sample_pack(), dir.file("a.pb"));
  EXPECT_EQ(bytes, read_bytes(dir.file("a.pb")));
}

TEST(RulePackIo, KeepsAbsentAttributesAbsent) {
  pb::Graph msg;
  graph_to_proto(parse_graph("input x\ny = const_pool[k=3,3]()\n"
                             "z, w = split[axis=1](concat[axis=1](x, y))\n"
                             "output z, w\n"),
                 &msg);
  std::vector<std::string> stored;
  for (const auto &node : msg.nodes())
    for (const auto &attr : node.attrs())
      stored.push_back(node.op() + "." + attr.name());
  EXPECT_EQ(stored, (std::vector<std::string>{"const_pool.k", "concat.axis",
                                              "split.axis"}));
}

TEST(RulePackIo, DetectsTheFormat) {
  const std::string ours = serialize_rule_pack(sample_pack());
  EXPECT_EQ(detect_rule_file_format(ours, "a.pb"), RuleFileFormat::QuarryPack);
  EXPECT_EQ(detect_rule_file_format(ours.substr(0, 30), "a.pb"),
            RuleFileFormat::QuarryPack);
  EXPECT_EQ(error_of([] { detect_rule_file_format("", "e.pb"); }),
            "e.pb: empty file, not a rule pack");
}

TEST(RulePackIo, RejectsTruncatedAndCorruptFiles) {
  ScratchDir dir;
  const std::string bytes = serialize_rule_pack(sample_pack());
  const std::string cut = dir.file("cut.pb");
  write_bytes(cut, bytes.substr(0, bytes.size() / 2));
  EXPECT_EQ(error_of([&] { read_rule_pack(cut); }),
            cut + ": corrupt quarry rule pack (truncated or damaged)");

  const std::string text = dir.file("text.pb");
  write_bytes(text, "this is not a rule pack\n");
  std::string msg = error_of([&] { read_rule_pack(text); });
  EXPECT_EQ(msg.rfind(text + ": ", 0), 0u) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;

  const std::string missing = dir.file("missing.pb");
  msg = error_of([&] { read_rule_pack(missing); });
  EXPECT_EQ(msg.rfind(missing + ": cannot open", 0), 0u) << msg;
}

TEST(RulePackIo, RejectsAnotherFormatVersion) {
  pb::RulePack m;
  m.set_format("quarry.rulepack.v9");
  EXPECT_EQ(error_of([&] { parse_rule_pack(m.SerializeAsString(), "v.pb"); }),
            "v.pb: unsupported rule-pack format 'quarry.rulepack.v9' (this "
            "quarry reads quarry.rulepack.v1)");
}

/// A one-rule pack whose source node 2 (after inputs x, w) is `node`.
std::string pack_with_source_node(const pb::Node &node) {
  pb::RulePack m;
  m.set_format(std::string(kRulePackFormat));
  pb::Rule *r = m.add_rules();
  graph_to_proto(parse_graph("input x\ninput w\ny = conv2d(x, w)\noutput y\n"),
                 r->mutable_source());
  *r->mutable_source()->mutable_nodes(2) = node;
  graph_to_proto(parse_graph("input x\ninput w\ny = conv2d(x, w)\noutput y\n"),
                 r->mutable_target());
  return m.SerializeAsString();
}

pb::Node conv_node() {
  pb::Node n;
  n.set_op("conv2d");
  for (int i = 0; i < 2; ++i)
    n.add_inputs()->set_node(i);
  return n;
}

TEST(RulePackIo, ValidatesNodesOnRead) {
  auto error_for = [](const pb::Node &n) {
    return error_of([&] { parse_rule_pack(pack_with_source_node(n), "x.pb"); });
  };
  EXPECT_EQ(error_for(conv_node()), "no error");

  pb::Node n = conv_node();
  n.set_op("conv3d");
  EXPECT_EQ(error_for(n),
            "x.pb: rule 0: source node 2: unknown operator 'conv3d'");

  n = conv_node();
  n.add_attrs()->set_name("dilation");
  n.mutable_attrs(0)->set_int_value(2);
  EXPECT_EQ(error_for(n), "x.pb: rule 0: source node 2: conv2d: unknown "
                          "attribute 'dilation'");

  n = conv_node();
  n.add_attrs()->set_name("s");
  n.mutable_attrs(0)->set_int_value(2);
  EXPECT_EQ(error_for(n), "x.pb: rule 0: source node 2: conv2d: attribute s "
                          "must be a list of integers");

  n = conv_node();
  n.mutable_inputs(1)->set_node(5);
  EXPECT_EQ(error_for(n),
            "x.pb: rule 0: source node 2: conv2d: no value 5:0 in the graph");

  n = conv_node();
  n.mutable_inputs()->RemoveLast();
  EXPECT_EQ(error_for(n), "x.pb: rule 0: source node 2: conv2d: expects 2 "
                          "operands, got 1");
}

TEST(RulePackIo, ValidatesRulesOnRead) {
  RulePack pack = sample_pack();
  std::string bytes = serialize_rule_pack(pack);
  pb::RulePack m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  m.mutable_rules(1)->mutable_target()->mutable_nodes(0)->set_name("z");
  EXPECT_EQ(error_of([&] { parse_rule_pack(m.SerializeAsString(), "r.pb"); }),
            "r.pb: rule 1: target variable 'z' is not bound by the source");

  ASSERT_TRUE(m.ParseFromString(bytes));
  m.mutable_rules(0)->mutable_target()->mutable_outputs()->RemoveLast();
  EXPECT_EQ(error_of([&] { parse_rule_pack(m.SerializeAsString(), "r.pb"); }),
            "r.pb: rule 0: the source has 1 outputs but the target 0");

  ASSERT_TRUE(m.ParseFromString(bytes));
  m.mutable_rules(0)->mutable_source()->mutable_outputs(0)->set_output(1);
  EXPECT_EQ(error_of([&] { parse_rule_pack(m.SerializeAsString(), "r.pb"); }),
            "r.pb: rule 0: source output 0: no value 5:1 in the graph");
}

TEST(RulePackIo, WriteFailuresNameThePathAndLeaveNothing) {
  ScratchDir dir;
  const std::string path = dir.file("no/such/dir/p.pb");
  std::string msg = error_of([&] { write_rule_pack(sample_pack(), path); });
  EXPECT_EQ(msg.rfind(path + ": cannot create", 0), 0u) << msg;

  RulePack bad = sample_pack();
  bad.rules[0].target = parse_graph("input q\noutput q\n");
  msg = error_of([&] { write_rule_pack(bad, dir.file("bad.pb")); });
  EXPECT_EQ(msg, dir.file("bad.pb") +
                     ": rule 0 (distribute): target "
                     "variable 'q' is not bound by the source");
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

} // namespace
} // namespace quarry
