//===- compare_test.cc - Rule identity, derivations, pack comparison ------===//
#include "quarry/ruleset/compare.h"
#include "quarry/ruleset/rule_key.h"

#include <gtest/gtest.h>

namespace quarry::ruleset {
namespace {

Rule commute_add(const std::string &name, const std::string &a,
                 const std::string &b) {
  return parse_rule(name,
                    "input " + a + "\ninput " + b + "\nout = ewadd(" + a +
                        ", " + b + ")\noutput out\n",
                    "input " + a + "\ninput " + b + "\nout = ewadd(" + b +
                        ", " + a + ")\noutput out\n");
}

TEST(RuleKey, NamesAndOutputOrderDoNotMatterButOperatorsDo) {
  EXPECT_EQ(rule_key(commute_add("a", "x", "y")),
            rule_key(commute_add("b", "p", "q")));
  const Rule two = parse_rule(
      "two",
      "input x\ninput y\ns = ewadd(x, y)\nm = ewmul(x, y)\noutput s, m\n",
      "input x\ninput y\ns = ewadd(y, x)\nm = ewmul(y, x)\noutput s, m\n");
  const Rule swapped = parse_rule(
      "swapped",
      "input a\ninput b\nm = ewmul(a, b)\ns = ewadd(a, b)\noutput m, s\n",
      "input a\ninput b\nm = ewmul(b, a)\ns = ewadd(b, a)\noutput m, s\n");
  EXPECT_EQ(rule_key(two), rule_key(swapped));
  // Outputs permute together: pairing s with m's target is another rule.
  const Rule crossed = parse_rule(
      "crossed",
      "input a\ninput b\nm = ewmul(a, b)\ns = ewadd(a, b)\noutput m, s\n",
      "input a\ninput b\nm = ewmul(b, a)\ns = ewadd(b, a)\noutput s, m\n");
  EXPECT_NE(rule_key(two), rule_key(crossed));
  const Rule mul =
      parse_rule("mul", "input x\ninput y\nz = ewmul(x, y)\noutput z\n",
                 "input x\ninput y\nz = ewmul(y, x)\noutput z\n");
  EXPECT_NE(rule_key(commute_add("a", "x", "y")), rule_key(mul));
  // Which variable goes where matters, not what it is called...
  const Rule swap = parse_rule(
      "swap", "input x\ninput y\nz = concat[axis=0](x, y)\noutput z\n",
      "input x\ninput y\nz = concat[axis=0](y, x)\noutput z\n");
  const Rule keep = parse_rule(
      "keep", "input x\ninput y\nz = concat[axis=0](x, y)\noutput z\n",
      "input x\ninput y\nz = concat[axis=0](x, y)\noutput z\n");
  EXPECT_NE(rule_key(swap), rule_key(keep));
  // ...except under a commutative operator, as matching ignores that order.
  EXPECT_EQ(rule_key(commute_add("a", "x", "y")),
            rule_key(parse_rule(
                "same", "input x\ninput y\nz = ewadd(x, y)\noutput z\n",
                "input x\ninput y\nz = ewadd(x, y)\noutput z\n")));
}

RulePack pack_of(std::vector<Rule> rules) {
  RulePack p;
  p.rules = std::move(rules);
  return p;
}

TEST(ComparePacks, HasReversedDerivesAndLacks) {
  // B: addition regroups, and relu(relu(x)) = relu(x) read backwards.
  const RulePack b = pack_of(
      {parse_rule("add_regroups",
                  "input x\ninput y\ninput z\nw = ewadd(ewadd(x, y), z)\n"
                  "output w\n",
                  "input x\ninput y\ninput z\nw = ewadd(x, ewadd(y, z))\n"
                  "output w\n"),
       parse_rule("relu_grows", "input x\ny = relu(x)\noutput y\n",
                  "input x\ny = relu(relu(x))\noutput y\n")});
  const RulePack a = pack_of({
      parse_rule("same",
                 "input p\ninput q\ninput r\nw = ewadd(ewadd(q, p), r)\n"
                 "output w\n",
                 "input p\ninput q\ninput r\nw = ewadd(q, ewadd(p, r))\n"
                 "output w\n"),
      parse_rule("relu_idempotent", "input x\ny = relu(relu(x))\noutput y\n",
                 "input x\ny = relu(x)\noutput y\n"),
      // Two regroupings: ((a + b) + c) + d = a + (b + (c + d)).
      parse_rule("two_steps",
                 "input a\ninput b\ninput c\ninput d\n"
                 "y = ewadd(ewadd(ewadd(a, b), c), d)\noutput y\n",
                 "input a\ninput b\ninput c\ninput d\n"
                 "y = ewadd(a, ewadd(b, ewadd(c, d)))\noutput y\n"),
      parse_rule("mul_regroups",
                 "input x\ninput y\ninput z\nw = ewmul(ewmul(x, y), z)\n"
                 "output w\n",
                 "input x\ninput y\ninput z\nw = ewmul(x, ewmul(y, z))\n"
                 "output w\n"),
      // Only the operands of a commutative operator move: no rule needed.
      commute_add("commutes", "p", "q"),
  });
  const Comparison c = compare_packs(a, b);
  ASSERT_EQ(c.rules.size(), 5u);
  EXPECT_EQ(c.rules[0].standing, Standing::Has);
  EXPECT_EQ(c.rules[0].same_as, "add_regroups");
  EXPECT_EQ(c.rules[1].standing, Standing::HasReversed);
  EXPECT_EQ(c.rules[1].same_as, "relu_grows");
  ASSERT_EQ(c.rules[2].standing, Standing::Derives);
  // Twice, one of them perhaps read backwards from the target's end.
  ASSERT_EQ(c.rules[2].derivation.steps.size(), 2u);
  for (const std::string &step : c.rules[2].derivation.steps)
    EXPECT_EQ(step_rule(step), "add_regroups");
  EXPECT_FALSE(c.rules[2].derivation.shapes.empty());
  EXPECT_EQ(c.rules[3].standing, Standing::Lacks);
  ASSERT_EQ(c.rules[4].standing, Standing::Derives);
  EXPECT_TRUE(c.rules[4].derivation.steps.empty());
  EXPECT_EQ(c.has, 2);
  EXPECT_EQ(c.derives, 2);
  EXPECT_EQ(c.lacks, 1);
  const std::string text = format_comparison(c);
  EXPECT_NE(text.find("derives  two_steps by add_regroups, add_regroups"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("derives  commutes by commutativity (at "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("5 rules: has 2, derives 2, lacks 1\n"),
            std::string::npos)
      << text;

  // Without derivations, what is not had is lacked.
  CompareOptions quick;
  quick.derive = false;
  EXPECT_EQ(compare_packs(a, b, quick).lacks, 3);
}

} // namespace
} // namespace quarry::ruleset
