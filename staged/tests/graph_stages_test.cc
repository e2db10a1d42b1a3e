//===- graph_stages_test.cc - Cutting a graph at its opaque operators -----===//
#include "quarry/staged/graph_stages.h"

#include "quarry/core/ops/opaque.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace quarry::staged {
namespace {

ValueRef relu(Graph &g, ValueRef x) { return g.add1(OpKind::Relu, {x}); }

ValueRef opaque(Graph &g, ValueRef x, int64_t id) {
  return g
      .add(OpKind::Opaque,
           make_attrs(OpKind::Opaque,
                      {{"id", id},
                       {"shapes", ops::Opaque::encode_shapes({Shape{2, 3}})},
                       {"types", std::vector<int64_t>{1}}}),
           {x})
      .at(0);
}

TEST(GraphStages, AGraphWithoutOpaqueOperatorsIsOneStage) {
  Graph g;
  ValueRef x = g.input("x", Shape{2, 3});
  ValueRef w = g.weight("w", Shape{2, 3});
  g.mark_output(relu(g, g.add1(OpKind::EwAdd, {x, w})));
  const auto stages = split_at_opaque(g);
  ASSERT_EQ(stages.size(), 1u);
  EXPECT_TRUE(stages[0].reads.empty());
  EXPECT_TRUE(stages[0].then_opaque.empty());
  EXPECT_EQ(stages[0].graph.num_operators(), 2);
  EXPECT_EQ(stages[0].computes, g.outputs());
  // Its variables keep their names, so bindings by name still apply.
  EXPECT_GE(stages[0].graph.find_variable("x"), 0);
  EXPECT_GE(stages[0].graph.find_variable("w"), 0);
}

TEST(GraphStages, WhatReadsAnOpaqueOperatorRunsInTheNextStage) {
  Graph g;
  ValueRef x = g.input("x", Shape{2, 3});
  ValueRef a = relu(g, x);
  ValueRef k = opaque(g, a, 0);
  ValueRef side = relu(g, a); // reads nothing opaque: stays in stage 0
  ValueRef b = g.add1(OpKind::EwAdd, {relu(g, k), side});
  g.mark_output(b);
  g.mark_output(a);
  const auto stages = split_at_opaque(g);
  ASSERT_EQ(stages.size(), 2u);
  EXPECT_EQ(stages[0].then_opaque, std::vector<int32_t>{k.node});
  EXPECT_EQ(stages[0].graph.num_operators(), 2); // a and side
  // Stage 0 hands on `a` (to the opaque operator and as an output) and
  // `side` (to stage 1).
  EXPECT_EQ(stages[0].computes.size(), 2u);
  // Stage 1 reads what the opaque operator and stage 0 computed.
  const GraphStage &last = stages[1];
  EXPECT_EQ(last.graph.num_operators(), 2);
  ASSERT_EQ(last.reads.size(), 2u);
  EXPECT_TRUE(std::find(last.reads.begin(), last.reads.end(), k) !=
              last.reads.end());
  EXPECT_EQ(last.computes, std::vector<ValueRef>{b});
  for (const std::string &name : last.read_names)
    EXPECT_EQ(g.find_variable(name), -1) << name;
}

TEST(GraphStages, OpaqueOperatorsInARowEachEndAStage) {
  Graph g;
  ValueRef x = g.input("x", Shape{2, 3});
  ValueRef k1 = opaque(g, relu(g, x), 0);
  ValueRef k2 = opaque(g, k1, 1);
  g.mark_output(relu(g, k2));
  const auto stages = split_at_opaque(g);
  ASSERT_EQ(stages.size(), 3u);
  EXPECT_EQ(stages[0].then_opaque, std::vector<int32_t>{k1.node});
  EXPECT_EQ(stages[1].then_opaque, std::vector<int32_t>{k2.node});
  EXPECT_EQ(stages[1].graph.num_operators(), 0);
  EXPECT_EQ(stages[2].graph.num_operators(), 1);
}

} // namespace
} // namespace quarry::staged
