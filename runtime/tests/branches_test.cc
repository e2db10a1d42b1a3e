//===- branches_test.cc - Only the branch a scalar condition takes runs ---===//
#include "branches.h"
#include "cases.h"

#include "quarry/runtime/cpu_backend.h"

namespace quarry::runtime::testing {
namespace {

/// An If on a computed condition as import writes it: a relu of a product
/// when the mean of x reaches t, a tanh of x otherwise, both after a
/// shared sigmoid; `extra` adds lines before the outputs.
Graph if_graph(const std::string &extra = "") {
  return parse_graph("input x: [1,8]\nweight t: []\nweight w: [8,8]\n"
                     "s = sigmoid(x)\n"
                     "c = reshape[shape=](broadcast[fn=ge](reduce_mean[axes=-1 "
                     "keepdims=0](s), t))\n"
                     "a = relu(matmul(s, w))\nb = tanh(s)\n"
                     "y = where(c, a, b)\n" +
                     extra + "output y\n");
}

/// The guards branch_guards gives node `name`, as "c" / "!c" strings.
std::vector<std::string> guards_of(const Graph &g, const std::string &name) {
  const Plan p = plan_shapes(g);
  const auto guards = branch_guards(g, p);
  for (int32_t id = 0; id < g.num_nodes(); ++id)
    if (g.node(id).name == name) {
      std::vector<std::string> out;
      if (const auto it = guards.find(id); it != guards.end())
        for (const BranchGuard &b : it->second)
          out.push_back((b.when ? "" : "!") + g.node(b.cond.node).name);
      return out;
    }
  ADD_FAILURE() << "no node " << name;
  return {};
}

using Guards = std::vector<std::string>;

TEST(BranchGuards, EachSideRunsOnlyForItsValue) {
  const Graph g = if_graph();
  EXPECT_EQ(guards_of(g, "a"), Guards{"c"});
  EXPECT_EQ(guards_of(g, "b"), Guards{"!c"});
  // The product inside `a` too, but not what the condition reads.
  EXPECT_EQ(guards_of(g, "s"), Guards{});
  EXPECT_EQ(guards_of(g, "c"), Guards{});
  EXPECT_EQ(guards_of(g, "y"), Guards{});
}

TEST(BranchGuards, AValueReadElsewhereIsAlwaysNeeded) {
  // `b` is also an output, `a` is also read past the where.
  const Graph g = if_graph("z = relu(a)\noutput b, z\n");
  EXPECT_EQ(guards_of(g, "a"), Guards{});
  EXPECT_EQ(guards_of(g, "b"), Guards{});
}

TEST(BranchGuards, AConditionOfManyValuesGuardsNothing) {
  const Graph g =
      parse_graph("input x: [1,8]\ninput c: [1,8]\n"
                  "a = relu(x)\nb = tanh(x)\ny = where(c, a, b)\noutput y\n");
  EXPECT_EQ(guards_of(g, "a"), Guards{});
  EXPECT_EQ(guards_of(g, "b"), Guards{});
}

TEST(BranchGuards, BranchesNest) {
  // An inner If in the outer one's then branch, on its own condition.
  const Graph g =
      parse_graph("input x: [1,8]\ninput c: []\ninput d: []\n"
                  "a = relu(x)\nb = tanh(x)\ne = sigmoid(x)\n"
                  "inner = where(d, a, b)\ny = where(c, inner, e)\noutput y\n");
  EXPECT_EQ(guards_of(g, "a"), (Guards{"c", "d"}));
  EXPECT_EQ(guards_of(g, "b"), (Guards{"c", "!d"}));
  EXPECT_EQ(guards_of(g, "inner"), Guards{"c"});
  EXPECT_EQ(guards_of(g, "e"), Guards{"!c"});
}

TEST(CpuBranches, OnlyTheTakenSideRunsAndTheResultIsTheReferences) {
  const Graph g = if_graph();
  auto cpu = make_cpu_backend();
  auto ref = make_reference_backend();
  Bindings<float> values = random_run_bindings(g, 3);
  auto e = cpu->prepare(g, values);
  int guarded = 0;
  for (const StepInfo &s : e->steps())
    guarded += s.label.find(" if 'c'") != std::string::npos ||
               s.label.find(" unless 'c'") != std::string::npos;
  EXPECT_EQ(guarded, 2); // the product with its relu; the tanh
  // The mean of a sigmoid lies in (0, 1): t = -1 takes `a`, t = 2 `b`.
  for (const float t : {-1.0f, 2.0f}) {
    values.insert_or_assign("t", Tensor<float>(Shape{}, std::vector<float>{t}));
    auto cpu_e = cpu->prepare(g, values);
    const auto want = run_once(*ref->prepare(g, values), values);
    EXPECT_LE(max_relative_error(run_once(*cpu_e, values), want), kTolerance)
        << t;
    // The other side's buffer holds whatever it held: run again.
    EXPECT_LE(max_relative_error(run_once(*cpu_e, values), want), kTolerance)
        << t;
  }
}

} // namespace
} // namespace quarry::runtime::testing
