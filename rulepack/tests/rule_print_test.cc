//===- rule_print_test.cc - The rule-pack listing -------------------------===//
#include "quarry/rulepack/rule_print.h"

#include "quarry/core/text.h"

#include <gtest/gtest.h>

namespace quarry {
namespace {

TEST(RulePrint, ListsHeaderRulesAndMapping) {
  RulePack pack;
  pack.header.tool_version = "0.1.0";
  pack.header.operators = {"relu", "concat", "split"};
  pack.header.settings = {{"importer", "taso"}};
  pack.header.description = "two relus";
  Rule rule{"merge_relus",
            parse_graph("input x\ninput y\na = relu(x)\nb = relu(y)\n"
                        "output a, b\n"),
            parse_graph("input x\ninput y\n"
                        "a, b = split[axis=1](relu(concat[axis=1](x, y)))\n"
                        "output a, b\n"),
            {}};
  Provenance &p = rule.provenance;
  p.origin = "taso-import";
  p.source_file = "graph_subst.pb";
  p.source_index = 4;
  p.status = ProofStatus::Proved;
  p.axioms = {"relu_concat"};
  p.prove_seconds = 0.5;
  p.prover = "z3";
  pack.rules.push_back(std::move(rule));
  EXPECT_EQ(print_rule_pack(pack),
            "rule pack: 1 rules\n"
            "tool version: 0.1.0\n"
            "operators: relu, concat, split\n"
            "setting: importer = taso\n"
            "seed: 0\n"
            "description: two relus\n"
            "\n"
            "rule merge_relus  [proved, taso-import]\n"
            "  from: graph_subst.pb, rule 4\n"
            "  proof: proved by z3 in 0.5 s, axioms: relu_concat\n"
            "  source:\n"
            "    input x\n"
            "    input y\n"
            "    a = relu(x)\n"
            "    b = relu(y)\n"
            "    output a, b\n"
            "  target:\n"
            "    input x\n"
            "    input y\n"
            "    a, b = split[axis=1](relu(concat[axis=1](x, y)))\n"
            "    output a, b\n"
            "  mapping: source output 0 -> target output 0, source output 1 "
            "-> target output 1\n");
}

TEST(RulePrint, OneLineTextAndFamily) {
  const Rule fuse = parse_rule("fuse",
                               "input x\nweight w\n"
                               "y = relu(conv2d(x, w))\noutput y\n",
                               "input x\nweight w\n"
                               "y = conv2d[act=relu](x, w)\noutput y\n");
  EXPECT_EQ(rule_text(fuse), "relu(conv2d[s=1,1 pad=same act=none](x, w)) => "
                             "conv2d[s=1,1 pad=same act=relu](x, w)");
  EXPECT_EQ(rule_family(fuse), "conv2d+relu");
  // Two outputs: the statements, joined.
  const Rule merge = parse_rule(
      "merge",
      "input x\nweight a\nweight b\n"
      "p = matmul(x, a)\nq = matmul(x, b)\noutput p, q\n",
      "input x\nweight a\nweight b\n"
      "p, q = split[axis=1](matmul(x, concat[axis=1](a, b)))\noutput p, q\n");
  EXPECT_EQ(rule_family(merge), "concat+matmul+split");
  EXPECT_NE(rule_text(merge).find(" => "), std::string::npos);
  EXPECT_NE(rule_text(merge).find("; output"), std::string::npos);
}

} // namespace
} // namespace quarry
