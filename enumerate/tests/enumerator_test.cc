#include "quarry/core/evaluate.h"
#include "quarry/enumerate/enumerator.h"
#include "quarry/field/random_field.h"
#include "quarry/field/tensor_hash.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace quarry {
namespace {

GenConfig small_config() {
  return read_gen_config(QUARRY_SOURCE_DIR "/enumerate/tests/small.gen");
}

std::vector<GraphRecord> enumerate_all(const GenConfig &cfg, int max_ops,
                                       int rank = 0, int ranks = 1) {
  std::vector<GraphRecord> out;
  Enumerator e(cfg, max_ops, 7);
  e.run([&](uint64_t u) { return static_cast<int>(u % ranks) == rank; },
        [&](const GraphRecord &r) { out.push_back(r); });
  return out;
}

TEST(Enumerator, IncrementalEvaluationMatchesWholeGraphEvaluation) {
  const GenConfig cfg = small_config();
  const std::vector<GraphRecord> all = enumerate_all(cfg, 2);
  ASSERT_GT(all.size(), 100u);
  for (size_t i = 0; i < all.size(); i += 7) {
    const Graph g = decode_graph(cfg, all[i]);
    const auto outs = evaluate(PrimeField(7), g, random_field_bindings(g, 7));
    std::vector<uint64_t> hashes;
    for (const auto &t : outs)
      hashes.push_back(hash_tensor(t));
    ASSERT_TRUE(std::is_sorted(hashes.begin(), hashes.end()));
    EXPECT_EQ(combine_output_hashes(hashes), all[i].fp) << i;
  }
}

TEST(Enumerator, PrunesEqualTensorsDuplicateOpsAndVariableOrder) {
  const GenConfig cfg = small_config();
  for (const GraphRecord &r : enumerate_all(cfg, 3)) {
    const Graph g = decode_graph(cfg, r);
    // Variables first used in group order: w1 before w2, k1 before k2.
    std::vector<std::string> first_use;
    for (const Node &n : g.nodes())
      if (n.is_variable())
        first_use.push_back(n.name);
    auto pos = [&](const char *n) {
      return std::find(first_use.begin(), first_use.end(), n) -
             first_use.begin();
    };
    EXPECT_LE(pos("w1"), pos("w2"));
    if (pos("w2") < static_cast<long>(first_use.size())) {
      EXPECT_LT(pos("w1"), pos("w2"));
    }
    if (pos("k2") < static_cast<long>(first_use.size())) {
      EXPECT_LT(pos("k1"), pos("k2"));
    }
    // No operator applied twice to the same operands.
    std::set<std::pair<uint8_t, std::array<uint8_t, 3>>> seen;
    for (int i = 0; i < r.num_ops; ++i)
      EXPECT_TRUE(seen.insert({r.ops[i].choice, r.ops[i].in}).second);
  }
  // transpose(transpose(w1)) equals w1, so it is never built.
  for (const GraphRecord &r : enumerate_all(cfg, 2)) {
    if (r.num_ops != 2)
      continue;
    const GenOp &a = cfg.ops[r.ops[0].choice];
    const GenOp &b = cfg.ops[r.ops[1].choice];
    const bool chained = r.ops[1].in[0] == cfg.variables.size();
    EXPECT_FALSE(a.kind == OpKind::Transpose && b.kind == OpKind::Transpose &&
                 chained);
  }
}

TEST(Enumerator, UnitsPartitionTheSearchWhateverTheRankCount) {
  const GenConfig cfg = small_config();
  const std::vector<GraphRecord> whole = enumerate_all(cfg, 3);
  std::set<uint64_t> keys;
  for (const GraphRecord &r : whole)
    EXPECT_TRUE(keys.insert(r.key).second);
  for (int ranks : {2, 3}) {
    std::vector<GraphRecord> merged;
    for (int rank = 0; rank < ranks; ++rank) {
      auto part = enumerate_all(cfg, 3, rank, ranks);
      merged.insert(merged.end(), part.begin(), part.end());
    }
    auto by_key = [](const GraphRecord &a, const GraphRecord &b) {
      return a.key < b.key;
    };
    std::sort(merged.begin(), merged.end(), by_key);
    std::vector<GraphRecord> sorted = whole;
    std::sort(sorted.begin(), sorted.end(), by_key);
    EXPECT_EQ(merged, sorted) << ranks << " ranks";
  }
}

TEST(Enumerator, RejectsBadDepth) {
  const GenConfig cfg = small_config();
  EXPECT_THROW(Enumerator(cfg, 0, 1), Error);
  EXPECT_THROW(Enumerator(cfg, kMaxGenOps + 1, 1), Error);
}

} // namespace
} // namespace quarry
