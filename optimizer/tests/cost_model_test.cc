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

TEST(CostModel, CalibrationFitsAFactorOnOperatorsAndACostPerKernel) {
  CostModel cost(launch_cost);
  const Graph g = parse_graph("input x: [1,8,6,6]\nweight w: [8,8,3,3]\n"
                              "y = relu(conv2d(x, w))\noutput y\n");
  const Graph one = parse_graph("input x: [1,8,6,6]\nweight w: [8,8,3,3]\n"
                                "y = conv2d[act=relu](x, w)\noutput y\n");
  const Graph probe = parse_graph("input x: [1,16]\ninput c: [1,16]\n"
                                  "a = ewadd(x, c)\nb = ewmul(a, c)\n"
                                  "d = ewadd(b, c)\noutput d\n");
  const double alone = cost.graph_cost(g), one_alone = cost.graph_cost(one),
               probe_alone = cost.graph_cost(probe);
  // Whole, every graph takes twice its operators alone and 0.05 ms a
  // kernel (two kernels in g, three in the probe).
  cost.calibrate(g, 2 * alone + 0.1, &probe, 2 * probe_alone + 0.15);
  EXPECT_NEAR(cost.launch_ms(), 0.05, 1e-9);
  EXPECT_NEAR(cost.scale(), 2.0, 1e-9);
  EXPECT_NEAR(cost.graph_cost(g), 2 * alone + 0.1, 1e-9);
  EXPECT_NEAR(cost.graph_cost(one), 2 * one_alone + 0.05, 1e-9);
  EXPECT_NEAR(cost.graph_cost(probe), 2 * probe_alone + 0.15, 1e-9);
  // A probe no slower than its operators alone shows no cost per kernel:
  // the factor alone is fitted, and the ratio of two graphs' costs is the
  // ratio of their operators' costs alone.
  cost.calibrate(g, 3 * alone, &probe, probe_alone);
  EXPECT_EQ(cost.launch_ms(), 0.0);
  EXPECT_NEAR(cost.scale(), 3.0, 1e-9);
  EXPECT_NEAR(cost.graph_cost(g) / cost.graph_cost(one), alone / one_alone,
              1e-9);
  // Without a probe, likewise; a graph measured faster than its operators
  // alone scales them down.
  cost.calibrate(g, alone / 2);
  EXPECT_EQ(cost.launch_ms(), 0.0);
  EXPECT_NEAR(cost.graph_cost(g), alone / 2, 1e-9);
}

} // namespace
} // namespace quarry::opt::test
