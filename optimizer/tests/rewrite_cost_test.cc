//===- rewrite_cost_test.cc - Views' keys and costs against built graphs --===//
//
// Every rewrite that quarry's pack and the fusions propose on each network
// of the zoo, over a few steps of rewriting: a view made for the search
// must build what a view made for building alone builds, and give the
// search key and the cost (with the cpu backend's fusions) of that graph,
// exactly.
//
//===----------------------------------------------------------------------===//
#include "cost_fixture.h"
#include "packs.h"

#include "quarry/core/text.h"
#include "quarry/models/zoo.h"
#include "quarry/optimizer/rewrite_cost.h"
#include "quarry/rewrite/search_key.h"
#include "quarry/rewrite/transformation.h"
#include "quarry/runtime/backends.h"
#include "quarry/testing/sanitized.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace quarry::opt::test {
namespace {

struct Tally {
  int made = 0, refused = 0, unkeyed = 0;
  /// Graph::hash() of each search key seen, and the other way round: the
  /// key must tell apart the graphs the hash tells apart, and no more.
  std::map<uint64_t, uint64_t> hash_of_key, key_of_hash;
};

/// Checks every proposal on `host`; returns the graphs made, in order.
std::vector<Graph> check_all(const Graph &host,
                             const std::vector<rewrite::Transformation> &ts,
                             CostModel &cost, Tally &tally,
                             const std::string &where) {
  cost.graph_cost(host); // the host's own configurations are known
  const rewrite::HostInfo info(host);
  const rewrite::RewriteHost index(host);
  const CostIndex costs(index, cost);
  rewrite::ViewScratch scratch;
  CostScratch cost_scratch;
  using Outcome = rewrite::RewriteView::Outcome;
  std::vector<Graph> made;
  for (const rewrite::Transformation &t : ts)
    t.for_each_splice(
        info, 2000, [&](int ordinal, rewrite::OwnedSplice &&owned) {
          const rewrite::Splice &s = owned.splice;
          const rewrite::RewriteView view(index, s, scratch);
          std::optional<Graph> g = view.build();
          const std::string what =
              where + " " + t.name + " #" + std::to_string(ordinal);
          // A view for building alone (no keys, no ancestry) sees the same.
          const std::optional<Graph> alone = rewrite::splice(host, s);
          ASSERT_EQ(g.has_value(), alone.has_value()) << what;
          if (g) {
            EXPECT_EQ(print_graph(*g), print_graph(*alone)) << what;
          }
          if (view.outcome() == Outcome::Unkeyed) {
            ++tally.unkeyed;
          } else if (view.outcome() == Outcome::Refused) {
            EXPECT_FALSE(g.has_value()) << what;
            ++tally.refused;
          } else {
            ASSERT_TRUE(g.has_value()) << what;
            ++tally.made;
            EXPECT_EQ(view.key(), rewrite::search_key(*g)) << what;
            EXPECT_EQ(
                tally.hash_of_key.emplace(view.key(), g->hash()).first->second,
                g->hash())
                << what << ": its search key is another graph's";
            EXPECT_EQ(
                tally.key_of_hash.emplace(g->hash(), view.key()).first->second,
                view.key())
                << what << ": the same graph has another search key";
            const std::optional<double> told =
                rewrite_cost(view, costs, cost_scratch);
            const double want = cost.graph_cost(*g);
            if (told) {
              EXPECT_EQ(*told, want) << what;
            }
            // Costed now: a second time must tell it.
            const std::optional<double> again =
                rewrite_cost(view, costs, cost_scratch);
            ASSERT_TRUE(again.has_value()) << what;
            EXPECT_EQ(*again, want) << what;
          }
          if (g)
            made.push_back(std::move(*g));
        });
  return made;
}

class RewriteCostZoo : public ::testing::TestWithParam<std::string> {};

TEST_P(RewriteCostZoo, EveryRewriteKeyedAndCostedAsItsGraph) {
  if (GetParam() == "nasnet_a")
    QUARRY_SKIP_UNDER_SANITIZERS("NASNet-A has ten times the rewrites of the "
                                 "other five networks, which run there");
  const auto pack = quarry_pack();
  if (!pack)
    GTEST_SKIP() << "rules/quarry-k3.verified.pb is absent";
  const auto cpu = runtime::make_backend("cpu");
  CostModel cost(launch_cost, *cpu);
  ModelOptions o;
  o.batch = 1;
  for (const ModelInfo &m : model_list())
    if (m.name == GetParam())
      o.size = m.min_size;
  Graph host = build_model(GetParam(), o).graph;
  const auto ts = rewrite::make_transformations(*pack);
  Tally tally;
  // A few steps deep, each from a rewrite far into the list, so hosts that
  // are themselves rewrites (with dead weights gone) are covered too.
  for (int step = 0; step < 3; ++step) {
    std::vector<Graph> made = check_all(
        host, ts, cost, tally, GetParam() + " step " + std::to_string(step));
    if (made.empty())
      break;
    host = std::move(made[(made.size() * 2) / 3]);
  }
  EXPECT_GT(tally.made, 0);
  // What a view does not key is built instead; it should be rare.
  EXPECT_LE(tally.unkeyed * 50, tally.made + tally.refused) << GetParam();
}

/// A host whose value `a` records a concat boundary on axis 1 (at 2 of 4
/// channels); relu(a) is read by a split without sizes when `cut` is set.
/// Inputs the replacements read: w [1,4,4,4], and 1-, 2- and 3-channel
/// images u1, u2, u3.
Graph boundary_host(bool cut) {
  Graph g;
  const ValueRef p = g.input("p", Shape{1, 2, 4, 4});
  const ValueRef q = g.input("q", Shape{1, 2, 4, 4});
  g.input("w", Shape{1, 4, 4, 4});
  for (int c = 1; c <= 3; ++c)
    g.input("u" + std::to_string(c), Shape{1, c, 4, 4});
  const ValueRef a =
      g.add1(OpKind::Concat, make_attrs(OpKind::Concat, {{"axis", int64_t{1}}}),
             {p, q});
  const ValueRef r = g.add1(OpKind::Relu, {a});
  if (cut) {
    for (ValueRef part :
         g.add(OpKind::Split, make_attrs(OpKind::Split, {{"axis", int64_t{1}}}),
               {r}))
      g.mark_output(g.add1(OpKind::Sigmoid, {part}));
  } else {
    g.mark_output(g.add1(OpKind::Sigmoid, {r}));
  }
  return g;
}

/// concat[axis=1] of `parts`' variables, the pattern's one output.
Graph concat_pattern(int parts) {
  Graph g;
  std::vector<ValueRef> in;
  for (int k = 0; k < parts; ++k)
    in.push_back(g.input("z" + std::to_string(k)));
  ValueRef out = in[0];
  for (int k = 1; k < parts; ++k)
    out = g.add1(OpKind::Concat,
                 make_attrs(OpKind::Concat, {{"axis", int64_t{1}}}),
                 {out, in[k]});
  g.mark_output(out);
  return g;
}

TEST(RewriteCost, OtherConcatBoundariesAreToldThroughTheSplitsThatCutAtThem) {
  Graph no_boundary;
  no_boundary.mark_output(
      no_boundary.add1(OpKind::Tanh, {no_boundary.input("z0")}));
  const Graph two = concat_pattern(2), three = concat_pattern(3);
  // Host ids: p 0, q 1, w 2, u1 3, u2 4, u3 5, a 6.
  const ValueRef w{2, 0}, u1{3, 0}, u2{4, 0}, u3{5, 0}, a{6, 0};
  struct Case {
    const char *what;
    rewrite::Splice splice;
    /// With the split: what the view must say.
    rewrite::RewriteView::Outcome cut;
  };
  const std::vector<Case> cases = {
      // No boundary left to cut at: refused.
      {"no boundary",
       {&no_boundary, {{"z0", w}}, {}, {a}},
       rewrite::RewriteView::Outcome::Refused},
      // The cut stays at 2 channels, the first part now carries a boundary
      // of its own: the same shapes, and the types downstream carry it.
      {"a boundary inside a part",
       {&three, {{"z0", u1}, {"z1", u1}, {"z2", u2}}, {}, {a}},
       rewrite::RewriteView::Outcome::Made},
      // The cut moves to 1 channel: every shape after the split changes,
      // and the graph is built to tell its key and cost.
      {"the cut moved",
       {&two, {{"z0", u1}, {"z1", u3}}, {}, {a}},
       rewrite::RewriteView::Outcome::Unkeyed},
  };
  const auto cpu = runtime::make_backend("cpu");
  CostModel cost(launch_cost, *cpu);
  for (const Case &c : cases)
    for (const bool cut : {false, true}) {
      const std::string what =
          std::string(c.what) + (cut ? ", cut" : ", not cut");
      const Graph host = boundary_host(cut);
      cost.graph_cost(host);
      const rewrite::RewriteHost index(host);
      const CostIndex costs(index, cost);
      rewrite::ViewScratch scratch;
      CostScratch cost_scratch;
      const rewrite::RewriteView view(index, c.splice, scratch);
      const std::optional<Graph> made = view.build();
      EXPECT_EQ(view.outcome(),
                cut ? c.cut : rewrite::RewriteView::Outcome::Made)
          << what;
      EXPECT_EQ(made.has_value(),
                view.outcome() != rewrite::RewriteView::Outcome::Refused)
          << what;
      if (view.outcome() != rewrite::RewriteView::Outcome::Made || !made)
        continue;
      EXPECT_EQ(view.key(), rewrite::search_key(*made)) << what;
      cost.graph_cost(*made);
      const std::optional<double> again =
          rewrite_cost(view, costs, cost_scratch);
      ASSERT_TRUE(again.has_value()) << what;
      EXPECT_EQ(*again, cost.graph_cost(*made)) << what;
    }
}

TEST(RewriteCost, AReaderOfAStaticReplacementIsCostedWithItsNewOperand) {
  // relu(x) is replaced by the weight w: ewadd(relu(x), x) becomes
  // ewadd(w, x), another configuration, which this cost tells apart.
  Graph host;
  const ValueRef x = host.input("x", Shape{1, 4, 4, 4});
  const ValueRef w = host.weight("w", Shape{1, 4, 4, 4});
  const ValueRef r = host.add1(OpKind::Relu, {x});
  host.mark_output(host.add1(OpKind::EwAdd, {r, x}));
  Graph pattern;
  pattern.mark_output(pattern.input("z"));
  const auto cpu = runtime::make_backend("cpu");
  CostModel cost(
      [](const runtime::OpConfig &c) {
        return c.weights.empty() || !c.weights[0] ? 0.01 : 0.5;
      },
      *cpu);
  cost.graph_cost(host);
  const rewrite::Splice s{&pattern, {{"z", w}}, {}, {r}};
  const std::optional<Graph> made = rewrite::splice(host, s);
  ASSERT_TRUE(made.has_value());
  const double want = cost.graph_cost(*made);
  const rewrite::RewriteHost index(host);
  const CostIndex costs(index, cost);
  rewrite::ViewScratch scratch;
  CostScratch cost_scratch;
  const rewrite::RewriteView view(index, s, scratch);
  ASSERT_EQ(view.outcome(), rewrite::RewriteView::Outcome::Made);
  EXPECT_EQ(view.key(), rewrite::search_key(*made));
  const std::optional<double> told = rewrite_cost(view, costs, cost_scratch);
  ASSERT_TRUE(told.has_value());
  EXPECT_EQ(*told, want);
}

INSTANTIATE_TEST_SUITE_P(Networks, RewriteCostZoo,
                         ::testing::Values("resnet50", "resnext50", "nasnet_a",
                                           "inception_v3", "bert", "nasrnn"));

} // namespace
} // namespace quarry::opt::test
