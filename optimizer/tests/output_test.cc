//===- output_test.cc - Optimized models written as ONNX and text ---------===//
#include "cost_fixture.h"
#include "test_util.h"

#include "quarry/models/onnx.h"
#include "quarry/rewrite/transformation.h"

namespace quarry::opt::test {
namespace {

TEST(Output, OptimizedModelRoundTripsThroughOnnxAndText) {
  CostModel cost(launch_cost);
  const Model m{
      parse_graph("input x: [1,8,8,8]\nweight a: [8,8,3,3]\n"
                  "weight b: [8,8,3,3]\n"
                  "y = ewadd(relu(conv2d(x, a)), relu(conv2d(x, b)))\n"
                  "output y\n"),
      {}};
  SearchOptions o;
  o.budget = 10;
  const OptimizeResult r =
      optimize(m, rewrite::make_transformations(RulePack{}), cost, o, 5);
  ASSERT_FALSE(r.search.steps.empty());
  const Model onnx = import_onnx_bytes(export_onnx_bytes(r.model), "opt.onnx");
  EXPECT_LT(output_error(m, onnx, 5), kTolerance);
  const Model text{parse_graph(print_graph(r.model.graph)), r.model.weights};
  EXPECT_LT(output_error(m, text, 5), kTolerance);
}

} // namespace
} // namespace quarry::opt::test
