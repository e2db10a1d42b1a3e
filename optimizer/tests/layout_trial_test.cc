//===- layout_trial_test.cc - A whole graph's convolutions in one layout
//---===//
#include "cost_fixture.h"
#include "test_util.h"

#include "quarry/models/model_file.h"
#include "quarry/optimizer/constant_fold.h"
#include "quarry/optimizer/layout_trial.h"
#include "quarry/rewrite/implementations.h"
#include "quarry/rewrite/transformation.h"
#include "quarry/testing/scratch_dir.h"

namespace quarry::opt::test {
namespace {

// Two convolutions, the second already in a layout of its own.
const char *kConvs = "input x: [1,16,8,8]\nweight a: [16,16,3,3]\n"
                     "weight b: [16,16,1,1]\n"
                     "c = conv2d[act=relu](x, a)\n"
                     "y = conv2d[layout=nhwc](c, b)\noutput y\n";

/// A timer whose graphs take 1 ms, or `in_layout` ms where a convolution
/// names nChw16c.
PrepareTimer blocked_takes(double in_layout) {
  return [in_layout](const Graph &g,
                     const WeightTable &) -> std::function<double()> {
    const bool blocked =
        print_graph(g).find("layout=nChw16c") != std::string::npos;
    const double t = blocked ? in_layout : 1.0;
    return [t] { return t; };
  };
}

/// Selection trying nChw16c, timed by blocked_takes(in_layout).
SelectOptions trying_blocked(double in_layout) {
  SelectOptions sel;
  sel.timer = blocked_takes(in_layout);
  sel.layouts = {ops::ConvLayout::Blocked16};
  return sel;
}

OptimizeResult optimized(const SelectOptions &sel) {
  static const RulePack none;
  const auto ts = rewrite::make_transformations(none, {.fusions = false});
  CostModel cost(launch_cost);
  SearchOptions o;
  o.budget = 4;
  return optimize(Model{parse_graph(kConvs), {}}, ts, cost, o, sel, 5);
}

TEST(LayoutTrial, EveryConvolutionThatNamesNoneTakesTheLayout) {
  const Graph g = with_layout(parse_graph(kConvs), ops::ConvLayout::Blocked16);
  EXPECT_EQ(rewrite::chosen_implementations(g),
            (std::vector<std::string>{"c: conv2d layout=nChw16c",
                                      "y: conv2d layout=nhwc"}));
  // The same computation.
  EXPECT_LT(error_between(parse_graph(kConvs), g), kTolerance);
}

TEST(LayoutTrial, ALayoutMeasuredFasterIsKeptWithTheGraph) {
  const OptimizeResult r = optimized(trying_blocked(0.5));
  EXPECT_TRUE(r.kept_original); // no rewrite: the layout alone
  ASSERT_EQ(r.layouts.size(), 1u);
  EXPECT_TRUE(r.layout_kept());
  EXPECT_DOUBLE_EQ(r.layouts[0].measured_speedup, 2.0);
  EXPECT_DOUBLE_EQ(r.layouts[0].confirmed_speedup, 2.0);
  EXPECT_EQ(r.implementations,
            (std::vector<std::string>{"c: conv2d layout=nChw16c",
                                      "y: conv2d layout=nhwc"}));
  // Saved and read back, the convolutions still name it (a value read
  // once is written inline, so it loses its name).
  quarry::testing::ScratchDir dir;
  const std::string path = dir.file("in_layout.qg");
  save_model(complete_weights(r.model, 3), path);
  std::vector<std::string> ways;
  for (const std::string &w :
       rewrite::chosen_implementations(load_graph_any(path).graph))
    ways.push_back(w.substr(w.find(": ")));
  EXPECT_EQ(ways, (std::vector<std::string>{": conv2d layout=nChw16c",
                                            ": conv2d layout=nhwc"}));
}

TEST(LayoutTrial, ALayoutMeasuredSlowerOrNotSteadilyFasterIsNot) {
  for (double in_layout : {1.5, 0.99}) {
    const OptimizeResult r = optimized(trying_blocked(in_layout));
    ASSERT_EQ(r.layouts.size(), 1u) << in_layout;
    EXPECT_FALSE(r.layout_kept()) << in_layout;
    EXPECT_NE(r.layouts[0].why_not.find("is not 2% below it"),
              std::string::npos)
        << r.layouts[0].why_not;
    EXPECT_EQ(rewrite::chosen_implementations(r.model.graph),
              (std::vector<std::string>{"y: conv2d layout=nhwc"}));
  }
}

TEST(LayoutTrial, ALayoutOutsideTheToleranceOnItsBackendIsNot) {
  auto cpu = runtime::make_backend("cpu");
  SelectOptions sel = trying_blocked(0.5);
  sel.choices_on = cpu.get();
  const OptimizeResult kept = optimized(sel);
  ASSERT_TRUE(kept.layout_kept());
  EXPECT_GE(kept.layouts[0].error, 0);
  EXPECT_LE(kept.implementations_error, sel.choice_tolerance);
  sel.choice_tolerance = -1; // no rounding meets it
  const OptimizeResult refused = optimized(sel);
  EXPECT_FALSE(refused.layout_kept());
  EXPECT_NE(refused.layouts[0].why_not.find("differ from the reference's"),
            std::string::npos)
      << refused.layouts[0].why_not;
}

} // namespace
} // namespace quarry::opt::test
