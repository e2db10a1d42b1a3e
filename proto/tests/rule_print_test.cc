//===- rule_print_test.cc - The rule-pack listing -------------------------===//
#include "quarry/rules/rule_print.h"

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

} // namespace
} // namespace quarry
