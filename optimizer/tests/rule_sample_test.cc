//===- rule_sample_test.cc - Rules of real packs on small graphs ----------===//
//
// For a sample of each pack's rules: give the source pattern's variables
// small shapes for which it type-checks, use the result as a host graph,
// apply the rule where it matches, and compare the outputs before and
// after on the reference backend.
//
//===----------------------------------------------------------------------===//
#include "packs.h"
#include "test_util.h"

#include "quarry/rewrite/transformation.h"

#include <random>

namespace quarry::opt::test {
namespace {

const Shape kShapes[] = {{4, 4},       {1, 4, 5, 5}, {4, 4, 3, 3}, {4, 4, 1, 1},
                         {4, 1, 3, 3}, {},           {2, 4, 4},    {1, 8, 5, 5},
                         {8, 4, 3, 3}, {4, 2, 3, 3}};

/// The pattern with shapes on its variables, or nullopt when it does not
/// type-check with them (or has a constant, whose shape would be needed).
std::optional<Graph> instantiate(const Graph &pattern, std::mt19937 &rng) {
  Graph g;
  std::vector<int32_t> id_of(pattern.num_nodes(), -1);
  std::uniform_int_distribution<size_t> pick(0, std::size(kShapes) - 1);
  try {
    for (int32_t id = 0; id < pattern.num_nodes(); ++id) {
      const Node &n = pattern.node(id);
      if (op_info(n.kind).traits.constant)
        return std::nullopt;
      if (n.is_variable()) {
        const Shape &s = kShapes[pick(rng)];
        id_of[id] = (n.kind == OpKind::Weight ? g.weight(n.name, s)
                                              : g.input(n.name, s))
                        .node;
        continue;
      }
      std::vector<ValueRef> in;
      for (ValueRef v : n.inputs)
        in.push_back({id_of[v.node], v.output});
      id_of[id] = g.add(n.kind, n.attrs, std::move(in))[0].node;
    }
  } catch (const Error &) {
    return std::nullopt;
  }
  for (ValueRef v : pattern.outputs())
    g.mark_output({id_of[v.node], v.output});
  return g;
}

struct Sample {
  int tried = 0, applied = 0;
};

Sample check_rules(const RulePack &pack, size_t max_rules) {
  Sample s;
  std::mt19937 rng(11);
  const size_t stride = std::max<size_t>(1, pack.rules.size() / max_rules);
  for (size_t i = 0; i < pack.rules.size(); i += stride) {
    const Rule &r = pack.rules[i];
    ++s.tried;
    for (int attempt = 0; attempt < 400; ++attempt) {
      const auto host = instantiate(r.source, rng);
      if (!host)
        continue;
      const rewrite::HostInfo info(*host);
      const auto matches = rewrite::find_matches(info, r.source, 1);
      if (matches.empty())
        continue;
      const auto rewritten = rewrite::apply_rule(info, r, matches[0]);
      if (!rewritten)
        continue;
      EXPECT_LT(error_between(*host, *rewritten), kTolerance)
          << r.name << " on\n"
          << print_graph(*host) << "gave\n"
          << print_graph(*rewritten);
      ++s.applied;
      break;
    }
  }
  return s;
}

/// At least half the sampled rules find shapes that they apply to, and
/// every one of those keeps the outputs.
void expect_sample(const RulePack &pack, const char *what) {
  const Sample s = check_rules(pack, 200);
  std::printf("%s: %d tried, %d applied on small graphs\n", what, s.tried,
              s.applied);
  EXPECT_GT(s.applied, s.tried / 2);
}

TEST(RuleSample, TasoRulesKeepOutputs) {
  const auto pack = taso_pack();
  if (!pack)
    GTEST_SKIP() << "TASO's rule collection is not on this machine";
  expect_sample(*pack, "TASO rules");
}

TEST(RuleSample, QuarryVerifiedRulesKeepOutputs) {
  const auto pack = quarry_pack();
  if (!pack)
    GTEST_SKIP() << "rules/quarry-k3.verified.pb is not in this checkout";
  expect_sample(*pack, "quarry rules");
}

} // namespace
} // namespace quarry::opt::test
