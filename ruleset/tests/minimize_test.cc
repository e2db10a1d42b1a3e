//===- minimize_test.cc - Packs without the rules their others derive -----===//
#include "quarry/core/file_io.h"
#include "quarry/rulepack/rule_pack_io.h"
#include "quarry/rulepack/rule_print.h"
#include "quarry/ruleset/minimize.h"
#include "quarry/testing/error_of.h"
#include "quarry/testing/sanitized.h"

#include <gtest/gtest.h>

namespace quarry::ruleset {
namespace {

RulePack sample_pack() {
  RulePack p;
  p.header.description = "sample";
  p.rules = {
      // Two regroupings of ewadd: derived by add_regroups twice.
      parse_rule("two_steps",
                 "input a\ninput b\ninput c\ninput d\n"
                 "y = ewadd(ewadd(ewadd(a, b), c), d)\noutput y\n",
                 "input a\ninput b\ninput c\ninput d\n"
                 "y = ewadd(a, ewadd(b, ewadd(c, d)))\noutput y\n"),
      parse_rule("add_regroups",
                 "input x\ninput y\ninput z\nw = ewadd(ewadd(x, y), z)\n"
                 "output w\n",
                 "input x\ninput y\ninput z\nw = ewadd(x, ewadd(y, z))\n"
                 "output w\n"),
      parse_rule("relu_grows", "input x\ny = relu(x)\noutput y\n",
                 "input x\ny = relu(relu(x))\noutput y\n"),
      // relu_grows read backwards.
      parse_rule("relu_shrinks", "input x\ny = relu(relu(x))\noutput y\n",
                 "input x\ny = relu(x)\noutput y\n"),
  };
  return p;
}

TEST(Minimize, LeavesOutWhatKeptRulesDeriveAndRecordsHow) {
  MinimizeOptions forward;
  forward.forward_only = true;
  const RulePack out = minimize_pack(sample_pack(), forward);
  // Forward only, as quarry optimize --forward-only applies rules:
  // relu_shrinks stays.
  ASSERT_EQ(out.rules.size(), 3u);
  EXPECT_EQ(out.rules[0].name, "add_regroups"); // the pack's order
  EXPECT_EQ(out.rules[1].name, "relu_grows");
  EXPECT_EQ(out.rules[2].name, "relu_shrinks");
  ASSERT_EQ(out.derived.size(), 1u);
  EXPECT_EQ(out.derived[0].name, "two_steps");
  EXPECT_EQ(out.derived[0].steps,
            (std::vector<std::string>{"add_regroups", "add_regroups"}));
  EXPECT_EQ(out.header.settings.back().first, "minimized");
  EXPECT_EQ(out.header.settings.back().second.rfind("kept 3 of 4 rules", 0),
            0u);

  // Both ways, as the optimizer applies rules by default, relu_shrinks is
  // relu_grows backwards.
  const MinimizeOptions both;
  const RulePack eq = minimize_pack(sample_pack(), both);
  ASSERT_EQ(eq.rules.size(), 2u);
  ASSERT_EQ(eq.derived.size(), 2u);
  EXPECT_EQ(eq.derived[0].name, "relu_shrinks"); // smaller first
  EXPECT_EQ(eq.derived[0].steps,
            std::vector<std::string>{"relu_grows reversed"});

  // The same pack again: nothing more to leave out, the record stays.
  const RulePack again = minimize_pack(eq, both);
  EXPECT_EQ(again.rules.size(), 2u);
  EXPECT_EQ(again.derived, eq.derived);
}

TEST(Minimize, DerivedRulesRoundTripAndMustNameKeptRules) {
  MinimizeOptions forward;
  forward.forward_only = true;
  const RulePack out = minimize_pack(sample_pack(), forward);
  const RulePack back = parse_rule_pack(serialize_rule_pack(out), "m.pb");
  EXPECT_EQ(back.derived, out.derived);
  EXPECT_NE(print_rule_pack(back).find(
                "derived from the rules above (1 left out):\n  two_steps by "
                "add_regroups, add_regroups (at "),
            std::string::npos)
      << print_rule_pack(back);

  RulePack broken = out;
  broken.derived[0].steps = {"absent reversed"};
  EXPECT_EQ(testing::error_of(
                [&] { parse_rule_pack(serialize_rule_pack(broken), "m.pb"); }),
            "m.pb: derived rule 0 (two_steps) is derived by 'absent "
            "reversed', which the pack does not hold");
}

TEST(Minimize, ARuleAboutWeightsDoesNotDeriveOneAboutInputs) {
  // matmul associativity over weights only, and over an input: the
  // optimizer cannot apply the first to an activation either way, so
  // minimizing keeps the second, forward only or both ways.
  RulePack p;
  const char *regrouped = "t = matmul(x, matmul(w1, w2))\noutput t\n";
  const char *grouped = "t = matmul(matmul(x, w1), w2)\noutput t\n";
  p.rules = {
      parse_rule("weights",
                 std::string("weight x\nweight w1\nweight w2\n") + grouped,
                 std::string("weight x\nweight w1\nweight w2\n") + regrouped),
      parse_rule("with_input",
                 std::string("input x\nweight w1\nweight w2\n") + grouped,
                 std::string("input x\nweight w1\nweight w2\n") + regrouped),
  };
  MinimizeOptions forward;
  forward.forward_only = true;
  EXPECT_EQ(minimize_pack(p, forward).rules.size(), 2u);
  EXPECT_EQ(minimize_pack(p).rules.size(), 2u);
}

TEST(Minimize, TheSamePackAtAnyThreadCount) {
  QUARRY_SKIP_UNDER_SANITIZERS("the shipped pack minimized twice; the small "
                               "packs of Minimize.* run there");
  // Blocks whose own kept rules derive later rules of the block.
  const RulePack pack = read_rule_pack(QUARRY_VERIFIED_RULES_FILE);
  MinimizeOptions one, two;
  one.threads = 1;
  two.threads = 2;
  const RulePack a = minimize_pack(pack, one);
  const RulePack b = minimize_pack(pack, two);
  EXPECT_LT(a.rules.size(), pack.rules.size() / 2);
  EXPECT_EQ(serialize_rule_pack(a), serialize_rule_pack(b));
  // The shipped minimized pack is what rules/README.md's command makes.
  EXPECT_EQ(serialize_rule_pack(a),
            read_file_bytes(QUARRY_MINIMIZED_RULES_FILE))
      << "remake rules/quarry-k3.min.pb as rules/README.md says";
}

} // namespace
} // namespace quarry::ruleset
