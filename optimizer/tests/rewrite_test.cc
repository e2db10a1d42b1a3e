//===- rewrite_test.cc - Matching and applying rules on small graphs ------===//
#include "test_util.h"

#include "quarry/rewrite/rewrite_view.h"
#include "quarry/rewrite/search_key.h"
#include "quarry/rewrite/splice.h"
#include "quarry/rewrite/transformation.h"

namespace quarry::opt::test {
namespace {

std::vector<Graph> apply_all(const Rule &r, const Graph &g) {
  const rewrite::Transformation t = rewrite::Transformation::of_rule(r);
  return t.apply(rewrite::HostInfo(g), 100);
}

const char *kTwoConvs = "input x\ninput w1\ninput w2\n"
                        "a = conv2d[act=relu](x, w1)\n"
                        "b = conv2d[act=relu](x, w2)\noutput a, b\n";
const char *kMergedConv = "input x\ninput w1\ninput w2\n"
                          "a, b = split[axis=1](conv2d[act=relu](x, "
                          "concat[axis=0](w1, w2)))\noutput a, b\n";

/// A two-output pattern sigmoid(p), tanh(q) replacing b and a of
/// `host`, with p bound to a: the pattern reads a value it replaces.
rewrite::Splice reads_its_replacement(const Graph &pattern, ValueRef a,
                                      ValueRef b, ValueRef q) {
  return {&pattern, {{"p", a}, {"q", q}}, {}, {b, a}};
}

TEST(Rewrite, APatternReadingAValueItReplacesReadsItsReplacement) {
  const Graph host = parse_graph("input x: [2,3]\na = relu(x)\n"
                                 "b = sigmoid(a)\noutput b\n");
  const Graph pattern = parse_graph("input p\ninput q\no0 = sigmoid(p)\n"
                                    "o1 = tanh(q)\noutput o0, o1\n");
  const ValueRef x{0, 0}, a{1, 0}, b{2, 0};
  // b becomes sigmoid(a), and a becomes tanh(x): sigmoid(tanh(x)).
  const rewrite::Splice s = reads_its_replacement(pattern, a, b, x);
  const std::optional<Graph> made = rewrite::splice(host, s);
  ASSERT_TRUE(made.has_value());
  EXPECT_TRUE(structurally_equal(
      *made, parse_graph("input x: [2,3]\ny = sigmoid(tanh(x))\n"
                         "output y\n")));
  // A view made for the search tells the same graph's key.
  const rewrite::RewriteHost index(host);
  rewrite::ViewScratch scratch;
  const rewrite::RewriteView view(index, s, scratch);
  ASSERT_EQ(view.outcome(), rewrite::RewriteView::Outcome::Made);
  EXPECT_EQ(view.key(), rewrite::search_key(*made));
  // With q bound to b, a's replacement reads b's, which reads a's: a
  // cycle, refused.
  EXPECT_FALSE(rewrite::splice(host, reads_its_replacement(pattern, a, b, b)));
}

TEST(Rewrite, MergesTwoConvolutionsAndKeepsOutputs) {
  const Rule r = make_rule("merge", kTwoConvs, kMergedConv);
  const Graph g = parse_graph("input x: [1,4,6,6]\nweight p: [3,4,3,3]\n"
                              "weight q: [3,4,3,3]\n"
                              "y = ewadd(conv2d[act=relu](x, p), "
                              "conv2d[act=relu](x, q))\noutput y\n");
  const auto out = apply_all(r, g);
  ASSERT_FALSE(out.empty());
  for (const Graph &h : out) {
    EXPECT_LT(error_between(g, h), kTolerance);
    EXPECT_EQ(h.num_operators(), 4); // concat, conv2d, split, ewadd
  }
}

TEST(Rewrite, ParametersMustAgree) {
  const Rule r = make_rule("merge", kTwoConvs, kMergedConv);
  // Different strides, and a missing activation: no match.
  const Graph g = parse_graph("input x: [1,4,6,6]\nweight p: [3,4,3,3]\n"
                              "weight q: [3,4,3,3]\n"
                              "a = conv2d[s=2,2 act=relu](x, p)\n"
                              "b = conv2d[act=relu](x, q)\n"
                              "c = conv2d(x, q)\noutput a, b, c\n");
  EXPECT_TRUE(apply_all(r, g).empty());
}

TEST(Rewrite, ARulesConvolutionMatchesOnlyAdjacentTaps) {
  // The rule's conv2d has no dilation: it was proved for adjacent taps,
  // so two dilated convolutions are no match, even with equal dilations.
  const Rule r = make_rule("merge", kTwoConvs, kMergedConv);
  const Graph dilated = parse_graph("input x: [1,4,9,9]\nweight p: [3,4,3,3]\n"
                                    "weight q: [3,4,3,3]\n"
                                    "a = conv2d[act=relu d=2,2](x, p)\n"
                                    "b = conv2d[act=relu d=2,2](x, q)\n"
                                    "output a, b\n");
  EXPECT_TRUE(apply_all(r, dilated).empty());
  const Graph plain = parse_graph("input x: [1,4,9,9]\nweight p: [3,4,3,3]\n"
                                  "weight q: [3,4,3,3]\n"
                                  "a = conv2d[act=relu](x, p)\n"
                                  "b = conv2d[act=relu](x, q)\n"
                                  "output a, b\n");
  EXPECT_FALSE(apply_all(r, plain).empty());
}

TEST(Rewrite, ShapeConditionsOfTheTargetAreChecked) {
  const Rule r = make_rule("merge", kTwoConvs, kMergedConv);
  // Kernels of different sizes cannot be concatenated.
  const Graph g = parse_graph("input x: [1,4,6,6]\nweight p: [3,4,3,3]\n"
                              "weight q: [3,4,1,1]\n"
                              "a = conv2d[act=relu](x, p)\n"
                              "b = conv2d[act=relu](x, q)\noutput a, b\n");
  EXPECT_TRUE(apply_all(r, g).empty());
}

TEST(Rewrite, SplitWithoutSizesMatchesOnlyAtTheConcatBoundary) {
  const Rule r = make_rule("split_concat",
                           "input a\ninput b\n"
                           "p, q = split[axis=1](concat[axis=1](a, b))\n"
                           "output p, q\n",
                           "input a\ninput b\noutput a, b\n");
  const char *host = "input x: [2,3]\ninput y: [2,5]\n"
                     "p, q = split[axis=1 sizes=%s](concat[axis=1](x, y))\n"
                     "output p, q\n";
  char text[256];
  std::snprintf(text, sizeof text, host, "3,5");
  const Graph at = parse_graph(text);
  const auto out = apply_all(r, at);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].num_operators(), 0);
  EXPECT_LT(error_between(at, out[0]), kTolerance);
  std::snprintf(text, sizeof text, host, "4,4");
  EXPECT_TRUE(apply_all(r, parse_graph(text)).empty());
}

TEST(Rewrite, WeightVariablesBindOnlyStaticValues) {
  const Rule r = make_rule(
      "enlarge", "input x\nweight w\ny = conv2d[act=none](x, w)\noutput y\n",
      "input x\nweight w\ny = conv2d[act=none](x, enlarge[k=5,5](w))\n"
      "output y\n");
  const Graph weights = parse_graph("input x: [1,2,6,6]\nweight w: [2,2,3,3]\n"
                                    "y = conv2d(x, w)\noutput y\n");
  const auto out = apply_all(r, weights);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_LT(error_between(weights, out[0]), kTolerance);
  const Graph activations = parse_graph(
      "input x: [1,2,6,6]\ninput w: [2,2,3,3]\ny = conv2d(x, w)\noutput y\n");
  EXPECT_TRUE(apply_all(r, activations).empty());
}

TEST(Rewrite, OtherConsumersOfAMatchedTensorKeepIt) {
  const Rule r = make_rule("distribute",
                           "input a\ninput b\ninput c\n"
                           "y = ewadd(ewmul(a, b), ewmul(a, c))\noutput y\n",
                           "input a\ninput b\ninput c\n"
                           "y = ewmul(a, ewadd(b, c))\noutput y\n");
  const Graph g = parse_graph("input a: [4,4]\ninput b: [4,4]\n"
                              "input c: [4,4]\nm = ewmul(a, b)\n"
                              "y = ewadd(m, ewmul(a, c))\nz = relu(m)\n"
                              "output y, z\n");
  const auto out = apply_all(r, g);
  ASSERT_FALSE(out.empty()); // ewadd's operands either way round
  for (const Graph &h : out) {
    // ewmul(a, b) stays for relu; the other ewmul and the ewadd go.
    EXPECT_EQ(h.num_operators(), 4);
    EXPECT_LT(error_between(g, h), kTolerance);
  }
}

TEST(Rewrite, CommutativeOperandsMatchEitherWay) {
  const Rule r = make_rule("distribute",
                           "input a\ninput b\ninput c\n"
                           "y = ewadd(ewmul(a, b), ewmul(a, c))\noutput y\n",
                           "input a\ninput b\ninput c\n"
                           "y = ewmul(a, ewadd(b, c))\noutput y\n");
  const Graph g =
      parse_graph("input a: [4,4]\ninput b: [4,4]\n"
                  "input c: [4,4]\n"
                  "y = ewadd(ewmul(b, a), ewmul(c, a))\noutput y\n");
  const auto out = apply_all(r, g);
  ASSERT_FALSE(out.empty());
  for (const Graph &h : out)
    EXPECT_LT(error_between(g, h), kTolerance);
}

TEST(Rewrite, CyclesAreRefused) {
  // Replacing a by relu(b) where b is computed from a would be a cycle.
  rewrite::Splice s;
  const Graph pattern = parse_graph("input v\ny = relu(v)\noutput y\n");
  const Graph g = parse_graph("input x: [4]\na = tanh(x)\nb = sigmoid(a)\n"
                              "output b\n");
  s.pattern = &pattern;
  s.bindings.emplace("v", ValueRef{2, 0});
  s.replaced = {ValueRef{1, 0}};
  EXPECT_FALSE(rewrite::splice(g, s).has_value());
}

TEST(Rewrite, PreconditionsMustHold) {
  Rule r = make_rule("same", "input a\ninput b\ny = ewadd(a, b)\noutput y\n",
                     "input a\ninput b\ny = ewadd(b, a)\noutput y\n");
  r.preconditions = {{"a", 0, "b", 1}};
  const Graph square = parse_graph(
      "input x: [3,3]\ninput z: [3,3]\ny = ewadd(x, z)\noutput y\n");
  EXPECT_FALSE(apply_all(r, square).empty());
  const Graph wide = parse_graph(
      "input x: [3,4]\ninput z: [3,4]\ny = ewadd(x, z)\noutput y\n");
  EXPECT_TRUE(apply_all(r, wide).empty());
}

TEST(Rewrite, TargetConstantsTakeTheirShapeFromTheirUse) {
  const Rule r = make_rule(
      "identity", "input a\ninput b\ny = matmul(a, b)\noutput y\n",
      "input a\ninput b\ny = matmul(matmul(a, const_imm()), b)\noutput y\n");
  const Graph g = parse_graph("input x: [3,5]\nweight w: [5,2]\n"
                              "y = matmul(x, w)\noutput y\n");
  const auto out = apply_all(r, g);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_LT(error_between(g, out[0]), kTolerance);
}

TEST(Rewrite, RulesApplyBothWaysUnlessForwardOnly) {
  // The pack keeps one orientation of an equation; a network holding its
  // right-hand side is rewritten by the rule read backwards.
  RulePack pack;
  pack.rules = {make_rule("relu_grows", "input x\ny = relu(x)\noutput y\n",
                          "input x\ny = relu(relu(x))\noutput y\n")};
  const auto both = rewrite::make_transformations(pack, {.fusions = false});
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[0].name, "relu_grows");
  EXPECT_EQ(both[1].name, "relu_grows reversed");
  // Each needs a relu in the host before it matches at all.
  std::bitset<kNumOps> relu;
  relu.set(static_cast<size_t>(OpKind::Relu));
  EXPECT_EQ(both[0].needs, relu);
  EXPECT_EQ(both[1].needs, relu);
  const Graph no_relu =
      parse_graph("input x: [2,3]\ny = ewadd(x, x)\noutput y\n");
  EXPECT_TRUE(both[1].apply(rewrite::HostInfo(no_relu), 10).empty());
  const Graph g = parse_graph("input x: [2,3]\ny = relu(relu(x))\noutput y\n");
  const auto shrunk = both[1].apply(rewrite::HostInfo(g), 10);
  ASSERT_EQ(shrunk.size(), 1u);
  EXPECT_EQ(shrunk[0].num_operators(), 1);
  EXPECT_LT(error_between(g, shrunk[0]), kTolerance);

  const auto forward = rewrite::make_transformations(
      pack, {.fusions = false, .reversed = false});
  ASSERT_EQ(forward.size(), 1u);
  EXPECT_EQ(forward[0].name, "relu_grows");
}

TEST(Rewrite, ARuleWhoseTargetDropsAVariableIsNotReversed) {
  // Backwards it would have to make up a value for a.
  RulePack pack;
  pack.rules = {make_rule("drops_a",
                          "input a\ninput b\ny = ewadd(relu(a), b)\noutput "
                          "y\n",
                          "input b\ny = relu(b)\noutput y\n")};
  EXPECT_FALSE(reversible(pack.rules[0]));
  EXPECT_EQ(rewrite::make_transformations(pack, {.fusions = false}).size(), 1u);
}

} // namespace
} // namespace quarry::opt::test
