//===- rewrite_view.h - A rewrite, seen before it is made ------*- C++ -*-===//
//
// The one rewrite engine. A RewriteView reads the graph a splice
// (splice.h) makes as an overlay of its host: host ids stay, the pattern's
// nodes take ids from host.num_nodes() on, the host nodes that read a
// replaced value are seen with that operand redirected, and the nodes the
// rewrite leaves without a reader die. From it:
//
//   - whether the rewrite is refused (a shape the pattern's operators
//     reject, a replacement of another shape, a cycle);
//   - the rewritten graph's search_key(), from the keys of the pattern's
//     nodes and how much the graph's key depends on each reader of a
//     replaced value (the key is linear in its nodes' keys); where more
//     than keys changes downstream (a static flag, a concat boundary a
//     split cuts at, a path through a node that dies), by rekeying every
//     node downstream of the replaced values;
//   - the nodes whose running may change, so that a cost model can price
//     the rewritten graph from the host's price (optimizer/rewrite_cost.h);
//   - build(): the graph itself, emitted from the overlay.
//
// A view costs what the rewrite touches (and one pass over the ids
// downstream of it where the key needs rekeying): per-node state lives in
// a ViewScratch sized to the host and stamped per view.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/rewrite/refused_shapes.h"
#include "quarry/rewrite/rewrite_host.h"
#include "quarry/rewrite/splice.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>

namespace quarry::rewrite {

/// Working memory for views on one thread, reused from view to view. One
/// view at a time per scratch.
class ViewScratch {
public:
  ViewScratch();
  ~ViewScratch();
  ViewScratch(ViewScratch &&) noexcept;
  ViewScratch &operator=(ViewScratch &&) noexcept;

private:
  friend class RewriteView;
  struct Data;
  std::unique_ptr<Data> d_;
};

/// Where a refusal for shapes is remembered (refused_shapes.h), and under
/// which key; both optional.
struct RefusalMemo {
  RefusedShapes *refused = nullptr;
  uint64_t key = 0;
};

class ViewEmitter;

class RewriteView {
public:
  /// `host`, `s` and `scratch` outlive the view.
  RewriteView(const RewriteHost &host, const Splice &s, ViewScratch &scratch,
              const RefusalMemo &memo = {});

  enum class Outcome {
    Refused, ///< no graph: build() gives nullopt
    Made,    ///< key() and changed_nodes() tell the graph build() makes
    /// A graph whose key this view does not tell: a shape downstream of a
    /// replaced value changes (a concat boundary a split cuts at moved),
    /// or the host is not keyed. build() makes it, or refuses it.
    Unkeyed,
  };
  Outcome outcome() const { return outcome_; }
  /// The rewritten graph's search_key() (Outcome::Made).
  uint64_t key() const { return key_; }

  /// The rewritten graph, emitted from the overlay in the host's order;
  /// nullopt when refused. Every `input` variable of the host is kept, in
  /// order, even when unused.
  std::optional<Graph> build() const;

  // --- The rewritten graph, read in place (Outcome::Made) ----------------
  /// Ids below the host's node count are its nodes; from it on, the
  /// pattern's.
  bool is_new(int32_t id) const { return id >= n_; }
  /// Whether the node is in the rewritten graph and reaches an output.
  bool in_graph(int32_t id) const;
  const Node &node(int32_t id) const;
  /// The value's type, or nullptr when unknown.
  const TensorType *type(ValueRef v) const;
  bool is_static(int32_t id) const;
  /// Whether the node runs per inference: in the graph, not static, no
  /// variable.
  bool is_step(int32_t id) const;
  /// A host node that reads a replacement in place of a replaced value.
  bool reads_replacement(int32_t id) const;
  bool is_output(ValueRef v) const;
  /// Calls f(reader) for each operand reading `v` in the rewritten graph.
  template <class F> void for_each_reader(ValueRef v, F f) const {
    readers_of(
        v, [](void *c, int32_t r) { (*static_cast<F *>(c))(r); }, &f);
  }
  /// The nodes whose running may change: the pattern's, the host nodes
  /// that die or read a replacement, the replaced values' and the
  /// pattern's operands' nodes, nodes whose static flag changes, and every
  /// reader of those in either graph. Each once, host and new ids.
  std::span<const int32_t> changed_nodes() const;

private:
  friend class ViewEmitter;
  /// Refused: for the types bound and replaced alone (remembered, see
  /// RefusalMemo); Tangled: for how this match sits in its host (values
  /// replacing each other, a pattern reading its own replacement, a new
  /// variable's name taken), which another match of the same types may not
  /// share.
  enum class Verdict { Go, Refused, Tangled, CannotTell };

  void readers_of(ValueRef v, void (*f)(void *, int32_t), void *ctx) const;
  bool dead(int32_t id) const;
  uint64_t hash_of(int32_t id) const;
  ValueRef redirect(ValueRef v) const;
  bool replaced(ValueRef v) const;
  ValueRef pattern_value(ValueRef v) const;

  Verdict instantiate();
  Verdict ensure(int32_t i);
  Verdict make(int32_t i, const Attrs &attrs);
  Verdict make_variable(int32_t i);
  Verdict resolve(ValueRef &v) const;
  Verdict operand(ValueRef pattern_operand, ValueRef &out);
  Verdict resolve_targets();
  Verdict check_cycles();
  int32_t uses(int32_t id) const;
  void add_uses(int32_t id, int32_t k);
  void find_dead();
  Verdict walk_downstream();
  Verdict retype(int32_t id, const Node &n);
  bool downstream_unchanged() const;
  uint64_t linear_key() const;
  uint64_t walked_key() const;
  uint64_t variables_key() const;
  void collect_changed();
  void add_changed(int32_t id);
  void add_with_readers(int32_t id);

  const RewriteHost &h_;
  const Graph &g_;
  const Splice &s_;
  ViewScratch::Data &d_;
  const int32_t n_;
  const Graph &pat_;
  Outcome outcome_ = Outcome::Refused;
  uint64_t key_ = 0;
  /// A replacement records other concat boundaries than the value it
  /// replaces.
  bool boundaries_moved_ = false;
};

} // namespace quarry::rewrite
