#include "quarry/core/text.h"
#include "quarry/dedupe/pruning.h"
#include "quarry/dedupe/renaming.h"
#include "quarry/enumerate/enumerator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

namespace quarry {
namespace {

constexpr uint64_t kSeed = 11;

GenConfig small_config() {
  return read_gen_config(QUARRY_SOURCE_DIR "/enumerate/tests/small.gen");
}

std::vector<GraphRecord> enumerate_all(const GenConfig &cfg, int max_ops,
                                       uint64_t fp_mask = ~uint64_t{0}) {
  std::vector<GraphRecord> out;
  Enumerator e(cfg, max_ops, kSeed);
  e.run([](uint64_t) { return true; },
        [&](const GraphRecord &r) {
          out.push_back(r);
          out.back().fp &= fp_mask;
        });
  return out;
}

/// The single-rank pipeline: renamed copies, classes, renaming, subgraph
/// pruning.
std::vector<CandidatePair> candidates(const GenConfig &cfg, int max_ops,
                                      ClassStats &stats,
                                      uint64_t fp_mask = ~uint64_t{0}) {
  std::vector<GraphRecord> records = enumerate_all(cfg, max_ops, fp_mask);
  const RenamedCopies copies(cfg, kSeed, 3);
  for (size_t i = 0, n = records.size(); i < n; ++i)
    for (GraphRecord c : copies.of(records[i])) {
      c.fp &= fp_mask;
      records.push_back(c);
    }
  std::map<std::string, CandidatePair> by_key;
  for (const CandidatePair &p :
       form_candidate_pairs(cfg, kSeed, records, stats))
    by_key.emplace(renaming_key(cfg, p), p);
  std::vector<CandidatePair> out;
  for (const auto &[key, p] : by_key)
    if (!has_common_subgraph(cfg, p.source.record, p.target.record) &&
        !has_common_supergraph(cfg, p.source.record, p.target.record))
      out.push_back(p);
  return out;
}

/// Whether some candidate relates `a` and `b` (texts of pattern graphs),
/// in either direction, with w1/w2 and k1/k2 possibly swapped and two
/// outputs a, b in either order.
bool has_rule(const GenConfig &cfg, const std::vector<CandidatePair> &pairs,
              std::string a, std::string b) {
  std::vector<std::pair<std::string, std::string>> variants = {{a, b}};
  auto swap_names = [](std::string s, const std::string &x,
                       const std::string &y) {
    const std::string tmp = "@@";
    for (auto [from, to] : {std::pair{x, tmp}, {y, x}, {tmp, y}})
      for (size_t p = s.find(from); p != std::string::npos;
           p = s.find(from, p + to.size()))
        s.replace(p, from.size(), to);
    return s;
  };
  for (auto [x, y] :
       {std::pair<std::string, std::string>{"w1", "w2"}, {"k1", "k2"}}) {
    const size_t n = variants.size();
    for (size_t i = 0; i < n; ++i)
      variants.emplace_back(swap_names(variants[i].first, x, y),
                            swap_names(variants[i].second, x, y));
  }
  // Outputs correspond by position: list them in the other order in both.
  for (size_t i = 0, n = variants.size(); i < n; ++i)
    variants.emplace_back(swap_names(variants[i].first, "output a\noutput b",
                                     "output b\noutput a"),
                          swap_names(variants[i].second, "output a\noutput b",
                                     "output b\noutput a"));
  for (const CandidatePair &p : pairs) {
    const Graph s = decode_graph(cfg, p.source.record, true);
    const Graph t = decode_graph(cfg, p.target.record, true);
    for (const auto &[va, vb] : variants) {
      const Graph ga = parse_graph(va), gb = parse_graph(vb);
      if ((structurally_equal(s, ga) && structurally_equal(t, gb)) ||
          (structurally_equal(s, gb) && structurally_equal(t, ga)))
        return true;
    }
  }
  return false;
}

TEST(Candidates, KnownSubstitutionsAreFound) {
  const GenConfig cfg = small_config();
  ClassStats stats;
  const auto pairs = candidates(cfg, 3, stats);
  EXPECT_EQ(stats.collisions, 0u);
  EXPECT_GT(stats.candidates, pairs.size());
  // matmul distributes over ewadd.
  EXPECT_TRUE(has_rule(cfg, pairs,
                       "input x\nweight w1\nweight w2\n"
                       "y = matmul(x, ewadd(w1, w2))\noutput y\n",
                       "input x\nweight w1\nweight w2\n"
                       "y = ewadd(matmul(x, w1), matmul(x, w2))\noutput y\n"));
  // Two convolutions of one input merge through concatenated weights.
  EXPECT_TRUE(has_rule(
      cfg, pairs,
      "input i\nweight k1\nweight k2\n"
      "a = conv2d[s=1,1 pad=same act=none](i, k1)\n"
      "b = conv2d[s=1,1 pad=same act=none](i, k2)\noutput a\noutput b\n",
      "input i\nweight k1\nweight k2\n"
      "a, b = split[axis=1](conv2d[s=1,1 pad=same act=none](i, "
      "concat[axis=0](k1, k2)))\noutput a\noutput b\n"));
  // A transpose of a product is the product of transposes, swapped.
  EXPECT_TRUE(has_rule(cfg, pairs,
                       "weight w1\nweight w2\n"
                       "y = transpose[perm=1,0](matmul(w1, w2))\noutput y\n",
                       "weight w1\nweight w2\ny = matmul(transpose[perm=1,0]"
                       "(w2), transpose[perm=1,0](w1))\noutput y\n"));
}

TEST(Candidates, RenamedCopiesMeetTheGraphsTheyEqual) {
  const GenConfig cfg =
      parse_gen_config("input x 2x2 count=3\nop ewadd order=increasing\n"
                       "op ewmul order=increasing\n",
                       "renamed.gen");
  // A copy is fingerprinted as the enumerator does: the identity's copy
  // would be the record itself.
  const RenamedCopies copies(cfg, kSeed, 3);
  for (const GraphRecord &r : enumerate_all(cfg, 2)) {
    GraphRecord again = r;
    copies.fingerprint(again);
    ASSERT_EQ(again.fp, r.fp);
    for (const GraphRecord &c : copies.of(r))
      EXPECT_NE(c.key, r.key); // shards store graphs by key
  }
  ClassStats stats;
  const auto pairs = candidates(cfg, 3, stats);
  auto has = [&](const std::string &source, const std::string &target) {
    for (const CandidatePair &p : pairs) {
      const std::string s =
          print_graph(decode_graph(cfg, p.source.record, true));
      const std::string t =
          print_graph(decode_graph(cfg, p.target.record, true));
      if ((s.find(source) != std::string::npos &&
           t.find(target) != std::string::npos) ||
          (s.find(target) != std::string::npos &&
           t.find(source) != std::string::npos))
        return true;
    }
    return false;
  };
  // x1 + (x2 + x3) is never enumerated (x2 is used first), and its copy
  // x3 + (x1 + x2) is the very graph (x1 + x2) + x3: associativity is the
  // graph paired with another renamed copy of itself.
  EXPECT_TRUE(
      has("= ewadd(x3, ewadd(x1, x2))\n", "= ewadd(x1, ewadd(x2, x3))\n"));
  // (x1 + x2) * x3 and x1 * x3 + x2 * x3: the second is enumerated only as
  // x1 * x2 + x3 * x2, another function; its copy meets the first.
  EXPECT_TRUE(has("= ewmul(x3, ewadd(x1, x2))\n",
                  "= ewadd(ewmul(x1, x3), ewmul(x2, x3))\n"));
}

TEST(Candidates, CollisionsAreCaughtByTheExactCheck) {
  const GenConfig cfg = small_config();
  ClassStats exact, tiny;
  const auto want = candidates(cfg, 2, exact);
  // Six fingerprint bits: thousands of unequal graphs share fingerprints.
  const auto got = candidates(cfg, 2, tiny, 0x3f);
  EXPECT_EQ(exact.collisions, 0u);
  EXPECT_GT(tiny.collisions, 100u);
  EXPECT_EQ(tiny.classes, exact.classes);
  EXPECT_EQ(tiny.candidates, exact.candidates);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(renaming_key(cfg, got[i]), renaming_key(cfg, want[i]));
  }
}

TEST(Pruning, RenamingKeyIgnoresVariableNames) {
  const GenConfig cfg = small_config();
  // matmul(x, w1) vs matmul(x, w2): one rule up to renaming.
  GraphRecord a, b;
  a.num_ops = b.num_ops = 1;
  a.num_outputs = b.num_outputs = 1;
  a.ops[0] = {0, {0, 1, kNoSlot}};
  b.ops[0] = {0, {0, 2, kNoSlot}};
  a.outputs[0] = b.outputs[0] = static_cast<uint8_t>(cfg.variables.size());
  CandidatePair p{{a, 0}, {a, 0}}, q{{b, 0}, {b, 0}};
  EXPECT_EQ(renaming_key(cfg, p), renaming_key(cfg, q));
  CandidatePair r{{a, 0}, {b, 0}};
  EXPECT_NE(renaming_key(cfg, p), renaming_key(cfg, r));
  EXPECT_TRUE(has_common_subgraph(cfg, a, a));
  EXPECT_FALSE(has_common_subgraph(cfg, a, b));
  EXPECT_TRUE(has_common_supergraph(cfg, a, b)); // differ in one operand
}

} // namespace
} // namespace quarry
