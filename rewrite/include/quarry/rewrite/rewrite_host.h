//===- rewrite_host.h - A graph indexed for viewing rewrites ---*- C++ -*-===//
//
// What every RewriteView (rewrite_view.h) of one graph reads: its nodes'
// liveness, static flags, readers and use counts; for a search also each
// node's key and how the graph's key moves with it, each node's ancestors
// and its values' type hashes. Made once per graph; read-only after, so
// views on several threads share it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/graph.h"

#include <cstdint>
#include <span>
#include <vector>

namespace quarry::rewrite {

class RewriteHost {
public:
  enum class Index {
    Build,  ///< what build() needs
    Search, ///< also what key() and refusal_key() need
  };
  explicit RewriteHost(const Graph &g, Index what = Index::Search);

  const Graph &graph() const { return *g_; }
  int32_t num_nodes() const { return g_->num_nodes(); }
  /// Made with Index::Search.
  bool keyed() const { return keyed_; }

  /// One reading operand: node `reader` reads output `output` of the node
  /// as its operand `slot`.
  struct Reader {
    int32_t reader;
    int32_t slot;
    int32_t output;
    uint64_t coef; ///< the operand's coefficient in the reader's key
  };
  /// The live nodes' operands reading node `id`'s outputs.
  std::span<const Reader> readers(int32_t id) const {
    return {readers_.data() + reader_begin_[id],
            readers_.data() + reader_begin_[id + 1]};
  }
  /// Whether the node reaches an output.
  bool is_live(int32_t id) const { return live_[id]; }
  /// Graph::static_nodes()'s flag.
  bool is_static(int32_t id) const { return fixed_[id]; }
  /// Whether the node runs per inference: live, not static, no variable.
  bool is_step(int32_t id) const { return step_[id]; }

  /// A hash of a value's type (shape and concat boundaries); one value for
  /// every value without a type. Index::Search.
  uint64_t type_hash(ValueRef v) const;

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
  friend class RewriteView;

  const Graph *g_;
  bool keyed_;
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
  /// Operands of live nodes and graph outputs reading each node.
  std::vector<int32_t> uses_;
  std::vector<int32_t> reader_begin_;
  std::vector<Reader> readers_;
  /// Type hashes of every node's outputs, from type_begin_[node].
  std::vector<int32_t> type_begin_;
  std::vector<uint64_t> type_hash_;
  uint64_t inputs_xor_ = 0, live_weights_xor_ = 0;
};

} // namespace quarry::rewrite
