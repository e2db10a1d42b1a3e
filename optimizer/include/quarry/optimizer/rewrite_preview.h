//===- rewrite_preview.h - A rewrite's hash and cost, not made -*- C++ -*-===//
//
// The search proposes about a thousand rewrites of every graph it expands
// and keeps the few it has not seen and can afford. Making each one (splice
// rebuilds the whole graph, then hashes and costs it) took over a
// millisecond on NASNet-A. A preview reads the same answers off the host:
//
//   - whether splice() would refuse the rewrite (a shape the target's
//     operators reject, a replaced value of another shape, a cycle);
//   - the rewritten graph's search_key(), from the keys of the pattern's
//     nodes and how much the graph's key depends on each reader of a
//     replaced value (the key is linear in its nodes' keys); where more
//     than keys changes downstream (a static flag, a concat boundary a
//     split cuts at, a path through a node that dies), by rekeying every
//     node downstream of the replaced values;
//   - its cost as CostModel::graph_cost() gives it, from the costs of the
//     nodes whose running changes: those that die, the pattern's, those
//     whose operands or readers change, and every node of the fusion chains
//     (fusion_policy.h) that pass near them.
//
// Both are exact (a test compares every rewrite of the benchmark networks
// with the graph splice() makes); a rewrite whose preview cannot be told
// (a pattern with new variables, a configuration never costed) says so, and
// the caller makes it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/optimizer/cost_model.h"
#include "quarry/rewrite/pattern_match.h"
#include "quarry/rewrite/splice.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_set>
#include <vector>

namespace quarry::opt {

/// A graph indexed for previews: its nodes' hashes, liveness, readers and
/// running costs. Made once per graph the search expands; read-only after.
class HostIndex {
public:
  HostIndex(const Graph &g, const CostModel &cost);
  const Graph &graph() const { return *g_; }
  /// The graph's cost in CostModel ticks, as graph_cost() gives it; -1 when
  /// one of its configurations has no cost yet.
  int64_t ticks() const { return ticks_; }
  /// A hash of a value's type (shape and concat boundaries); one value for
  /// every value without a type.
  uint64_t type_hash(ValueRef v) const;

  /// One reading operand: node `reader` reads output `output` of the node
  /// as its operand `slot`.
  struct Reader {
    int32_t reader;
    int32_t slot;
    int32_t output;
    uint64_t coef; ///< the operand's coefficient in the reader's key
  };

  /// Graphs up to this many nodes keep each node's ancestors as a bitset
  /// (n^2/8 bytes: 8 MiB at most), which tells whether a rewrite changes
  /// anything downstream but keys; larger ones rekey downstream always.
  static constexpr int32_t kMaxAncestryNodes = 8192;
  bool has_ancestry() const { return words_ > 0; }
  /// Whether `node` is `ancestor` or computed from it (has_ancestry()).
  bool descends_from(int32_t node, int32_t ancestor) const {
    return ancestry_[static_cast<size_t>(node) * words_ + ancestor / 64] >>
               (ancestor % 64) &
           1;
  }

private:
  friend class Previewer;

  const Graph *g_;
  const CostModel *cost_;
  const runtime::FusionPolicy *policy_;
  /// Each node's node_hash_seed() and key (search_key()).
  std::vector<uint64_t> seed_, key_;
  /// How the graph's key moves with each node's key, and the graph's key
  /// before its variables are XORed in.
  std::vector<uint64_t> sensitivity_;
  uint64_t linear_ = 0;
  /// Node i's ancestors (itself included): words_ words from i * words_.
  int32_t words_ = 0;
  std::vector<uint64_t> ancestry_;
  std::vector<uint8_t> live_, fixed_, step_;
  /// Each live operator's configuration (runtime::config_hash), else 0.
  std::vector<uint64_t> config_;
  /// What each node adds to the cost, in ticks (0 when it does not run).
  std::vector<int64_t> contrib_;
  /// Operands of live nodes and graph outputs reading each node.
  std::vector<int32_t> uses_;
  std::vector<int32_t> reader_begin_;
  std::vector<Reader> readers_;
  /// Type hashes of every node's outputs, from type_begin_[node].
  std::vector<int32_t> type_begin_;
  std::vector<uint64_t> type_hash_;
  uint64_t inputs_xor_ = 0, live_weights_xor_ = 0;
  int64_t ticks_ = 0;
};

/// A hash of a graph for the search to tell graphs apart by. Like
/// Graph::hash() it depends only on the computation (operators, their
/// attributes and operands, outputs in order, variables), not on node
/// order or names of values; unlike it, a node's key is linear in its
/// operands' keys (modulo the prime 2^61 - 1, each operand slot with its
/// own coefficient), so that a preview can tell the key of a rewritten
/// graph from the values the rewrite replaces and their readers.
uint64_t search_key(const Graph &g);

/// What splice() would make of a rewrite, told without making it.
struct Preview {
  enum class Outcome {
    Refused, ///< rewrite::splice() returns nullopt
    Made,    ///< `hash` (search_key()) and `cost` are the rewritten graph's
    Unknown, ///< the preview cannot tell: make the graph
  } outcome = Outcome::Unknown;
  uint64_t hash = 0;
  /// The rewritten graph's cost (ms); nullopt when one of its running
  /// configurations has no cost yet, so the graph must be made and costed.
  std::optional<double> cost;
  /// Made, and its hash is among PreviewMemo::seen: not costed.
  bool seen = false;
};

/// The rewrites refused for their shapes alone, remembered across hosts:
/// whether a pattern's operators accept the types bound to its variables,
/// and give the replaced values' types, depends on nothing else. The
/// search meets the same refused match in every graph it expands, and most
/// matches are refused. Safe from several threads.
class RefusedShapes {
public:
  RefusedShapes();
  ~RefusedShapes();
  bool contains(uint64_t key) const;
  void insert(uint64_t key);
  /// Bytes taken, about.
  size_t bytes() const;

private:
  struct Set;
  std::unique_ptr<Set> set_;
};

/// The key a rule's match is filed under in RefusedShapes: `pattern_key`
/// (which names the rule: its index, say), the types of the values bound
/// to its variables and of the values it replaces. A match is looked up
/// before its splice is made, since most are refused.
uint64_t refusal_key(uint64_t pattern_key, const HostIndex &host,
                     const rewrite::MatchSite &site);

/// What a preview remembers and what it may skip; all optional.
struct PreviewMemo {
  /// Where a refusal for shapes is remembered, under `refusal_key` (0:
  /// nowhere).
  RefusedShapes *refused = nullptr;
  uint64_t refusal_key = 0;
  /// Hashes of graphs already seen: a rewrite making one of them is not
  /// costed (Preview::seen).
  const std::unordered_set<uint64_t> *seen = nullptr;
};

class PreviewScratch;
Preview preview(const HostIndex &host, const rewrite::Splice &s,
                PreviewScratch &scratch, const PreviewMemo &memo = {});

/// Working memory for previews on one thread, sized to the host.
class PreviewScratch {
public:
  PreviewScratch();
  ~PreviewScratch();
  PreviewScratch(PreviewScratch &&) noexcept;
  PreviewScratch &operator=(PreviewScratch &&) noexcept;

private:
  friend Preview preview(const HostIndex &, const rewrite::Splice &,
                         PreviewScratch &, const PreviewMemo &);
  friend class Previewer;
  struct Data;
  std::unique_ptr<Data> d_;
};

} // namespace quarry::opt
