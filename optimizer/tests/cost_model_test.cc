//===- cost_model_test.cc - What the cost model counts and how it is fitted
//===//
#include "cost_fixture.h"
#include "test_util.h"

namespace quarry::opt::test {
namespace {

TEST(CostModel, NodesTheBackendFusesCostNothingOfTheirOwn) {
  // The cpu backend runs relu, the bias and the residual sum inside the
  // convolution's kernel: one kernel, whichever form the graph takes.
  CpuCosts costs;
  const Graph unfused = parse_graph(
      "input x: [1,8,6,6]\nweight w: [8,8,3,3]\nweight b: [8,1,1]\n"
      "input r: [1,8,6,6]\n"
      "y = relu(ewadd(broadcast[fn=add](conv2d(x, w), b), r))\noutput y\n");
  const Graph fused = parse_graph("input x: [1,8,6,6]\nweight w: [8,8,3,3]\n"
                                  "y = conv2d[act=relu](x, w)\noutput y\n");
  EXPECT_EQ(costs.model.running_nodes(unfused).nodes.size(), 1u);
  EXPECT_EQ(costs.model.running_nodes(fused).nodes.size(), 1u);
  // A cost function knows no backend: every operator counts.
  CostModel plain(launch_cost);
  EXPECT_EQ(plain.running_nodes(unfused).nodes.size(), 4u);
}

TEST(CostModel, CalibrationAddsTheFittedCostPerKernel) {
  CostModel cost(launch_cost);
  const Graph g = parse_graph("input x: [1,8,6,6]\nweight w: [8,8,3,3]\n"
                              "y = relu(conv2d(x, w))\noutput y\n");
  const Graph one = parse_graph("input x: [1,8,6,6]\nweight w: [8,8,3,3]\n"
                                "y = conv2d[act=relu](x, w)\noutput y\n");
  const double alone = cost.graph_cost(g), one_alone = cost.graph_cost(one);
  // Measured whole, the two kernels took 0.2 ms more than alone.
  cost.calibrate(g, alone + 0.2);
  EXPECT_NEAR(cost.launch_ms(), 0.1, 1e-12);
  EXPECT_NEAR(cost.graph_cost(g), alone + 0.2, 1e-12);
  EXPECT_NEAR(cost.graph_cost(one), one_alone + 0.1, 1e-12);
  // A graph measured faster than its operators alone fits no launch cost.
  cost.calibrate(g, alone / 2);
  EXPECT_EQ(cost.launch_ms(), 0.0);
}

} // namespace
} // namespace quarry::opt::test
