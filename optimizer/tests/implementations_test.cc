//===- implementations_test.cc - How operators run, chosen by the search --===//
#include "cost_fixture.h"
#include "test_util.h"

#include "quarry/models/model_file.h"
#include "quarry/optimizer/constant_fold.h"
#include "quarry/rewrite/implementations.h"
#include "quarry/rewrite/transformation.h"
#include "quarry/testing/scratch_dir.h"

namespace quarry::opt::test {
namespace {

// Two 3x3 convolutions a backend could run by Winograd, and a 1x1 it
// could not.
const char *kConvs = "input x: [1,16,8,8]\nweight a: [16,16,3,3]\n"
                     "weight b: [16,16,3,3]\nweight p: [16,16,1,1]\n"
                     "c = conv2d[act=relu](x, a)\n"
                     "d = conv2d(c, p)\ny = conv2d(d, b)\noutput y\n";

std::vector<Attrs> offer_winograd(const Graph &g, int32_t id) {
  const Node &n = g.node(id);
  if (n.kind != OpKind::Conv2D || n.attrs.has(ops::Conv2D::kAlgorithm) ||
      g.type(n.inputs[1])->shape[2] != 3)
    return {};
  Attrs way = n.attrs;
  way.set(ops::Conv2D::kAlgorithm,
          static_cast<int64_t>(ops::ConvAlgorithm::Winograd));
  return {way};
}

/// launch_cost, with a Winograd convolution costing `factor` times the
/// direct one.
CostModel::CostFn winograd_costs(double factor) {
  return [factor](const runtime::OpConfig &c) {
    runtime::OpConfig direct = c;
    const bool chosen = runtime::names_implementation(c);
    if (chosen)
      direct.attrs.set(ops::Conv2D::kAlgorithm, std::monostate{});
    return launch_cost(direct) * (chosen ? factor : 1.0);
  };
}

std::vector<rewrite::Transformation> choices_only() {
  static const RulePack none;
  return rewrite::make_transformations(
      none, {.fusions = false, .implementations = offer_winograd});
}

TEST(Implementations, OneSplicePerWayEachKeepingTheNodeAndItsName) {
  const Graph g = parse_graph(kConvs);
  const rewrite::HostInfo host(g);
  const std::vector<rewrite::OwnedSplice> proposals =
      rewrite::propose_implementations(host, offer_winograd);
  ASSERT_EQ(proposals.size(), 2u);
  std::vector<std::string> chosen;
  for (const rewrite::OwnedSplice &p : proposals) {
    const std::optional<Graph> h = rewrite::splice(g, p.splice);
    ASSERT_TRUE(h);
    EXPECT_EQ(h->num_operators(), g.num_operators());
    EXPECT_LT(error_between(g, *h), kTolerance);
    const std::vector<std::string> named = rewrite::chosen_implementations(*h);
    ASSERT_EQ(named.size(), 1u);
    chosen.push_back(named[0]);
  }
  EXPECT_EQ(chosen, (std::vector<std::string>{"c: conv2d alg=winograd",
                                              "y: conv2d alg=winograd"}));
  EXPECT_TRUE(rewrite::chosen_implementations(g).empty());
  // The fused activation and every other attribute stay as they were.
  const Graph h = *rewrite::splice(g, proposals[0].splice);
  EXPECT_NE(
      print_graph(h).find("conv2d[s=1,1 pad=same act=relu alg=winograd](x, a)"),
      std::string::npos)
      << print_graph(h);
}

TEST(Implementations, TheSearchTakesAWayWhereItIsCheaperAndOnlyThere) {
  SearchOptions o;
  o.budget = 10;
  const Graph g = parse_graph(kConvs);
  CostModel cheaper(winograd_costs(0.5));
  const SearchResult won = search(g, choices_only(), cheaper, o);
  EXPECT_EQ(rewrite::chosen_implementations(won.best).size(), 2u);
  EXPECT_EQ(won.steps.size(), 2u);
  CostModel dearer(winograd_costs(1.5));
  const SearchResult lost = search(g, choices_only(), dearer, o);
  EXPECT_TRUE(lost.steps.empty());
  EXPECT_TRUE(rewrite::chosen_implementations(lost.best).empty());
}

/// A timer whose graphs take 1 ms, or 0.5 ms where they name a way.
PrepareTimer choices_halve(double with_choices) {
  return [with_choices](const Graph &g,
                        const WeightTable &) -> std::function<double()> {
    const double t =
        rewrite::chosen_implementations(g).empty() ? 1.0 : with_choices;
    return [t] { return t; };
  };
}

TEST(Implementations, TheOriginalComesBackWhenEveryChoiceMeasuresSlower) {
  CostModel cost(winograd_costs(0.5));
  SearchOptions o;
  o.budget = 10;
  SelectOptions sel;
  sel.timer = choices_halve(1.5);
  const OptimizeResult r =
      optimize(Model{parse_graph(kConvs), {}}, choices_only(), cost, o, sel, 7);
  EXPECT_LT(r.search.best_cost, r.search.initial_cost);
  EXPECT_TRUE(r.kept_original);
  EXPECT_TRUE(r.implementations.empty());
  EXPECT_TRUE(rewrite::chosen_implementations(r.model.graph).empty());
}

TEST(Implementations, AWinnerIsKeptOnlyWithinTheToleranceOnItsBackend) {
  auto cpu = runtime::make_backend("cpu");
  const Graph g = parse_graph(kConvs);
  if (cpu->implementations(g, g.outputs()[0].node).empty())
    GTEST_SKIP() << "no Winograd on " << cpu->device_name();
  const auto offered = [&](const Graph &h, int32_t id) {
    return cpu->implementations(h, id);
  };
  static const RulePack none;
  const auto ts = rewrite::make_transformations(
      none, {.fusions = false, .implementations = offered});
  SearchOptions o;
  o.budget = 10;
  SelectOptions sel;
  sel.timer = choices_halve(0.5);
  sel.choices_on = cpu.get();
  CostModel cost(winograd_costs(0.5));
  const OptimizeResult kept = optimize(Model{g, {}}, ts, cost, o, sel, 7);
  EXPECT_FALSE(kept.kept_original);
  // Every convolution the backend offers a way for (the 1x1 as a product
  // of channels-last pixels, where they are) takes it: each halves.
  size_t ways = 0;
  for (int32_t id = 0; id < g.num_nodes(); ++id)
    ways += !cpu->implementations(g, id).empty();
  EXPECT_GE(ways, 2u);
  EXPECT_EQ(kept.implementations.size(), ways);
  EXPECT_GE(kept.implementations_error, 0);
  EXPECT_LE(kept.implementations_error, sel.choice_tolerance);
  // A tolerance no rounding meets: the winner is refused, saying why.
  sel.choice_tolerance = -1;
  const OptimizeResult refused = optimize(Model{g, {}}, ts, cost, o, sel, 7);
  EXPECT_TRUE(refused.kept_original);
  EXPECT_TRUE(refused.implementations.empty());
  EXPECT_NE(refused.kept_because.find("with the implementations it chose its "
                                      "outputs differ"),
            std::string::npos)
      << refused.kept_because;
}

TEST(Implementations, ChoicesSurviveTheTextFormAndSavedModels) {
  const Graph g =
      parse_graph("input x: [1,16,8,8]\nweight a: [16,16,3,3]\n"
                  "y = conv2d[act=relu alg=winograd](x, a)\noutput y\n");
  EXPECT_EQ(rewrite::chosen_implementations(parse_graph(print_graph(g))).size(),
            1u);
  quarry::testing::ScratchDir dir;
  const std::string path = dir.file("chosen.qg");
  save_model(complete_weights(Model{g, {}}, 3), path);
  EXPECT_EQ(rewrite::chosen_implementations(load_graph_any(path).graph),
            (std::vector<std::string>{"y: conv2d alg=winograd"}));
}

} // namespace
} // namespace quarry::opt::test
