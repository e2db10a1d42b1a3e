//===- derivation_test.cc - Derivations from both ends --------------------===//
#include "quarry/ruleset/derivation.h"
#include "quarry/ruleset/rule_key.h"

#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <unordered_set>

namespace quarry::ruleset {
namespace {

Rule add_regroups() {
  return parse_rule("add_regroups",
                    "input x\ninput y\ninput z\nw = ewadd(ewadd(x, y), z)\n"
                    "output w\n",
                    "input x\ninput y\ninput z\nw = ewadd(x, ewadd(y, z))\n"
                    "output w\n");
}

Rule relu_grows() {
  return parse_rule("relu_grows", "input x\ny = relu(x)\noutput y\n",
                    "input x\ny = relu(relu(x))\noutput y\n");
}

/// Rules and the transformations that point at them.
struct Steps {
  std::deque<Rule> rules;
  std::vector<rewrite::Transformation> by;
  void add(const Rule &r) {
    rules.push_back(r);
    by.push_back(rewrite::Transformation::of_rule(rules.back()));
  }
};

/// Whether taking `steps` forwards, each at any of its matches, turns the
/// rule's source into its target: a derivation found partly from the
/// target's end must still read from source to target.
bool replays(const Rule &rule, const std::vector<std::string> &steps,
             const std::vector<rewrite::Transformation> &by) {
  std::map<std::string, Shape> shapes;
  for (const Node &n : rule.source.nodes())
    if (n.is_variable())
      shapes[n.name] = Shape(std::vector<int64_t>{3, 3});
  std::vector<Graph> graphs{rebuilt(rule.source, {}, shapes, true)};
  for (const std::string &step : steps) {
    auto t = std::find_if(by.begin(), by.end(),
                          [&](const auto &x) { return x.name == step; });
    if (t == by.end())
      return false;
    std::vector<Graph> next;
    std::unordered_set<uint64_t> seen;
    for (const Graph &g : graphs)
      t->for_each(rewrite::HostInfo(g), 64, [&](int, Graph &&h) {
        if (seen.insert(equation_hash(h)).second)
          next.push_back(std::move(h));
      });
    graphs = std::move(next);
  }
  const uint64_t goal = equation_hash(rebuilt(rule.target, {}, shapes, true));
  return std::any_of(graphs.begin(), graphs.end(),
                     [&](const Graph &g) { return equation_hash(g) == goal; });
}

TEST(Derive, MeetsFromBothEndsAndTheStepsReadForwards) {
  // Matrix products regroup; unlike sums their operands do not commute,
  // so a step named the wrong way round does not replay.
  const Rule assoc = parse_rule("matmul_regroups",
                                "input x\ninput y\ninput z\n"
                                "w = matmul(matmul(x, y), z)\noutput w\n",
                                "input x\ninput y\ninput z\n"
                                "w = matmul(x, matmul(y, z))\noutput w\n");
  Steps s;
  s.add(assoc);
  s.add(reversed_rule(assoc));
  // Five factors from the left-leaning product to the right-leaning one:
  // three regroupings at least.
  const Rule five =
      parse_rule("five",
                 "input a\ninput b\ninput c\ninput d\ninput e\n"
                 "y = matmul(matmul(matmul(matmul(a, b), c), d), e)\n"
                 "output y\n",
                 "input a\ninput b\ninput c\ninput d\ninput e\n"
                 "y = matmul(a, matmul(b, matmul(c, matmul(d, e))))\n"
                 "output y\n");
  for (const Rule &rule : {five, reversed_rule(five)}) {
    const auto d = derive(rule, s.by);
    ASSERT_TRUE(d) << rule.name;
    EXPECT_GE(d->steps.size(), 3u);
    EXPECT_LE(d->steps.size(), 4u);
    EXPECT_TRUE(replays(rule, d->steps, s.by)) << rule.name;
  }
}

TEST(Derive, TheTargetsEndTakesOnlyRulesReadBothWays) {
  // relu(relu(x)) -> relu(x) is relu_grows backwards. With relu_grows
  // read forwards only, the target's end must not take it: its inverse is
  // not a step the derivation may name.
  const Rule shrinks = reversed_rule(relu_grows());
  Steps forward;
  forward.add(relu_grows());
  EXPECT_FALSE(derive(shrinks, forward.by));

  Steps both = forward;
  both.add(reversed_rule(relu_grows()));
  const auto d = derive(shrinks, both.by);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->steps, std::vector<std::string>{"relu_grows reversed"});
  EXPECT_TRUE(replays(shrinks, d->steps, both.by));
}

TEST(Derive, TheSourcesEndGoesOnWhenTheTargetsHasNothingToApply) {
  // Only relu_grows applies, read forwards only; the regrouping read both
  // ways gives the target's end something to try, which finds nothing.
  Steps s;
  s.add(relu_grows());
  s.add(add_regroups());
  s.add(reversed_rule(add_regroups()));
  const Rule grow = parse_rule(
      "grow", "input x\ninput y\na = relu(x)\nb = relu(y)\noutput a, b\n",
      "input x\ninput y\na = relu(relu(relu(x)))\nb = relu(y)\n"
      "output a, b\n");
  const auto d = derive(grow, s.by);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->steps, (std::vector<std::string>{"relu_grows", "relu_grows"}));
  EXPECT_TRUE(replays(grow, d->steps, s.by));
}

TEST(Derive, TheBudgetCountsBothEnds) {
  Steps s;
  s.add(add_regroups());
  s.add(reversed_rule(add_regroups()));
  const Rule four =
      parse_rule("four",
                 "input a\ninput b\ninput c\ninput d\n"
                 "y = ewadd(ewadd(ewadd(a, b), c), d)\noutput y\n",
                 "input a\ninput b\ninput c\ninput d\n"
                 "y = ewadd(a, ewadd(b, ewadd(c, d)))\noutput y\n");
  DeriveOptions tight;
  tight.max_graphs = 2; // the two ends themselves
  EXPECT_FALSE(derive(four, s.by, tight));
  EXPECT_TRUE(derive(four, s.by));
}

} // namespace
} // namespace quarry::ruleset
