//===- plan_test.cc - Folding and buffer reuse ----------------------------===//
#include "quarry/core/random.h"
#include "quarry/core/text.h"
#include "quarry/runtime/plan.h"

#include <gtest/gtest.h>

#include <set>

namespace quarry::runtime {
namespace {

Plan plan_of(const std::string &text) {
  const Graph g = parse_graph(text);
  return make_plan(g, random_float_bindings(g, 1), "test",
                   [](OpKind) { return true; });
}

TEST(Plan, ChainReusesBuffers) {
  // Five relus in a row: the input keeps its buffer and the five results
  // take turns in two more (the last, an output, then stays put).
  const Plan p = plan_of("input x: [8,8]\n"
                         "y = relu(relu(relu(relu(relu(x)))))\noutput y\n");
  EXPECT_EQ(p.steps.size(), 5u);
  EXPECT_EQ(p.buffer_elems.size(), 3u);
  EXPECT_EQ(p.planned_elems(), 3 * 64);
  EXPECT_EQ(p.unplanned_elems(), 6 * 64);
}

TEST(Plan, NoStepWritesABufferItReads) {
  const Graph g =
      parse_graph("input x: [4,4]\na = relu(x)\nb = tanh(a)\nc = ewadd(a, b)\n"
                  "d = ewmul(c, b)\ne = sigmoid(d)\noutput e\n");
  const Plan p = make_plan(g, {}, "test", [](OpKind) { return true; });
  for (int32_t id : p.steps)
    for (ValueRef in : g.node(id).inputs)
      EXPECT_NE(p.value(in).buffer, p.values[id][0].buffer) << id;
}

TEST(Plan, FoldsWeightOnlyOperators) {
  const Plan p =
      plan_of("input x: [1,2,5,5]\nweight w1: [2,2,3,3]\nweight w2: [2,2,1,1]\n"
              "y = conv2d(x, concat[axis=0](w1, enlarge(w2)))\noutput y\n");
  EXPECT_EQ(p.steps.size(), 1u); // only the convolution runs
  const Tensor<float> &kernel = p.static_values[4][0];
  EXPECT_EQ(kernel.shape, (Shape{4, 2, 3, 3}));
}

TEST(Plan, OutputsAndInputsAreNeverReused) {
  const Graph g = parse_graph("input x: [3]\na = relu(x)\nb = tanh(a)\n"
                              "c = sigmoid(b)\noutput a, c\n");
  const Plan p = make_plan(g, {}, "test", [](OpKind) { return true; });
  std::set<int> seen;
  for (int32_t id : {0, 1, 3})
    EXPECT_TRUE(seen.insert(p.values[id][0].buffer).second) << id;
}

} // namespace
} // namespace quarry::runtime
