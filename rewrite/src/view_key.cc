//===- view_key.cc - A RewriteView's key and changed nodes ----------------===//
//
// The rewritten graph's key moves only by what the replaced values'
// readers now read, weighted by how the host's key depends on each reader
// (RewriteHost's sensitivity), unless something else downstream changes:
// then every node downstream of the replaced values is rekeyed in id order.
//
//===----------------------------------------------------------------------===//
#include "linear_key.h"
#include "quarry/core/error.h"
#include "quarry/rewrite/rewrite_view.h"
#include "view_scratch.h"

namespace quarry::rewrite {

/// New keys and static flags of the host nodes downstream of the replaced
/// values, in id order (ids are topological).
RewriteView::Verdict RewriteView::walk_downstream() {
  int32_t from = n_;
  for (int32_t id : d_.redirected) {
    d_.down[id] = d_.epoch;
    from = std::min(from, id);
  }
  for (int32_t id = from; id < n_; ++id) {
    if (d_.down[id] != d_.epoch || dead(id))
      continue;
    const Node &n = node(id);
    if (boundaries_moved_)
      if (const Verdict v = retype(id, n); v != Verdict::Go)
        return v;
    bool all_static = !op_info(n.kind).traits.uninterpreted;
    for (ValueRef v : n.inputs)
      all_static = all_static && is_static(v.node);
    d_.down_hash[id] = key::node_key(h_.seed_[id], n.inputs,
                                     [&](int32_t in) { return hash_of(in); });
    d_.down_static[id] = all_static;
    if (static_cast<bool>(all_static) != static_cast<bool>(h_.fixed_[id]))
      d_.static_changed.push_back(id);
    for (const RewriteHost::Reader &r : h_.readers(id))
      d_.down[r.reader] = d_.epoch;
  }
  return Verdict::Go;
}

/// Where a replaced value carries other concat boundaries than before, the
/// types downstream carry them on, and a split without sizes cuts at them:
/// infers the types of downstream node `id` (`n`, its operands redirected)
/// when an operand's type is not the host's. Refused where the types do
/// not infer (build() refuses there too); CannotTell where a shape changes
/// (every cost downstream would), which leaves the graph to be built.
RewriteView::Verdict RewriteView::retype(int32_t id, const Node &n) {
  // A redirected reader reads a replacement, whose type is not the
  // replaced value's (a host value as replacement is not new).
  bool changed = d_.mod_at[id] == d_.epoch;
  for (ValueRef v : n.inputs)
    changed = changed || is_new(v.node) || d_.retyped_at[v.node] == d_.epoch;
  if (!changed)
    return Verdict::Go;
  std::vector<TensorType> &in = d_.operand_types;
  size_t count = 0;
  for (ValueRef v : n.inputs) {
    const TensorType *t = type(v);
    if (!t)
      return Verdict::CannotTell;
    if (count == in.size())
      in.emplace_back();
    in[count++] = *t;
  }
  std::optional<std::vector<TensorType>> now;
  try {
    now = infer_types(n.kind, n.attrs,
                      std::span<const TensorType>(in.data(), count));
  } catch (const Error &) {
    return Verdict::Refused;
  }
  const std::vector<TensorType> &was = g_.node(id).types;
  if (!now || now->size() != was.size())
    return Verdict::CannotTell;
  bool moved = false;
  for (size_t k = 0; k < was.size(); ++k) {
    if ((*now)[k].shape != was[k].shape)
      return Verdict::CannotTell;
    for (int a = 0; a < was[k].rank(); ++a)
      moved = moved || !same_splits(was[k].split(a), (*now)[k].split(a));
  }
  if (moved) {
    d_.retyped[id] = std::move(*now);
    d_.retyped_at[id] = d_.epoch;
  }
  return Verdict::Go;
}

/// Whether no host node downstream of the replaced values changes but in
/// its key: static flags stay, as do the concat boundaries a split may cut
/// at, and every path from a node reading a replaced value to an output
/// stays (no node on it dies or has a value replaced). Then the graph's
/// key moves only by what the replaced values' readers now read.
bool RewriteView::downstream_unchanged() const {
  if (!h_.has_ancestry() || boundaries_moved_)
    return false;
  for (size_t i = 0; i < s_.replaced.size(); ++i) {
    const ValueRef r = s_.replaced[i];
    if (is_static(d_.targets[i].node) != static_cast<bool>(h_.fixed_[r.node]))
      return false;
    for (const RewriteHost::Reader &rd : h_.readers(r.node)) {
      if (rd.output != r.output || dead(rd.reader))
        continue;
      for (int32_t d : d_.dying)
        if (h_.descends_from(d, rd.reader))
          return false;
      // A replaced value computed from the reader: the reader's paths to
      // the outputs through it are cut.
      for (ValueRef other : s_.replaced)
        if (h_.descends_from(other.node, rd.reader))
          return false;
    }
  }
  return true;
}

/// The graph's key from the host's, when downstream_unchanged().
uint64_t RewriteView::linear_key() const {
  uint64_t x = h_.linear_;
  for (size_t i = 0; i < s_.replaced.size(); ++i) {
    const ValueRef r = s_.replaced[i], t = d_.targets[i];
    uint64_t weight = 0;
    for (const RewriteHost::Reader &rd : h_.readers(r.node))
      if (rd.output == r.output && !dead(rd.reader))
        weight = field61::add(
            weight, field61::mul(h_.sensitivity_[rd.reader], rd.coef));
    for (size_t j = 0; j < g_.outputs().size(); ++j)
      if (g_.outputs()[j] == r)
        weight = field61::add(weight, key::output_coef(j));
    x = field61::add(
        x,
        field61::mul(weight,
                     field61::sub(key::value_key(hash_of(t.node), t.output),
                                  key::value_key(h_.key_[r.node], r.output))));
  }
  return x;
}

/// The graph's key, from its outputs' keys after walk_downstream().
uint64_t RewriteView::walked_key() const {
  return key::outputs_key(g_.outputs().size(), [&](size_t j) {
    const ValueRef v = redirect(g_.outputs()[j]);
    return key::value_key(hash_of(v.node), v.output);
  });
}

/// What the rewritten graph's variables add to its key.
uint64_t RewriteView::variables_key() const {
  uint64_t x = h_.inputs_xor_ ^ h_.live_weights_xor_;
  for (int32_t id : d_.dying)
    if (g_.node(id).kind == OpKind::Weight)
      x ^= variable_hash(h_.key_[id]);
  // A weight no host output used that the rewritten graph reads.
  std::vector<int32_t> &woken = d_.woken;
  woken.clear();
  const auto wake = [&](ValueRef v) {
    if (!is_new(v.node) && !h_.live_[v.node] &&
        g_.node(v.node).kind == OpKind::Weight &&
        std::find(woken.begin(), woken.end(), v.node) == woken.end()) {
      woken.push_back(v.node);
      x ^= variable_hash(h_.key_[v.node]);
    }
  };
  for (size_t p = 0; p < d_.made.size(); ++p) {
    if (!d_.pat_live[p])
      continue;
    if (d_.made[p].is_variable()) // a new variable
      x ^= variable_hash(d_.made_hash[p]);
    for (ValueRef v : d_.made[p].inputs)
      wake(v);
  }
  for (ValueRef t : d_.targets)
    wake(t);
  return x;
}

// --- Changed nodes ---------------------------------------------------------

void RewriteView::add_changed(int32_t id) {
  if (is_new(id)) {
    if (std::find(d_.changed.begin(), d_.changed.end(), id) == d_.changed.end())
      d_.changed.push_back(id);
    return;
  }
  if (d_.in_set[id] != d_.epoch) {
    d_.in_set[id] = d_.epoch;
    d_.changed.push_back(id);
  }
}

/// A node and every node reading it, in the host and the rewritten graph.
void RewriteView::add_with_readers(int32_t id) {
  add_changed(id);
  if (!is_new(id))
    for (const RewriteHost::Reader &r : h_.readers(id))
      add_changed(r.reader);
  const int outs = node(id).num_outputs;
  for (int o = 0; o < outs; ++o)
    for_each_reader({id, o}, [&](int32_t r) { add_changed(r); });
}

void RewriteView::collect_changed() {
  for (size_t p = 0; p < d_.made.size(); ++p)
    if (d_.pat_live[p])
      add_with_readers(n_ + static_cast<int32_t>(p));
  for (int32_t id : d_.dying) {
    add_changed(id);
    for (ValueRef v : g_.node(id).inputs)
      add_with_readers(v.node);
  }
  for (int32_t id : d_.redirected)
    add_changed(id);
  for (ValueRef r : s_.replaced)
    add_with_readers(r.node);
  for (ValueRef t : d_.targets)
    add_with_readers(t.node);
  for (size_t p = 0; p < d_.made.size(); ++p)
    if (d_.pat_live[p])
      for (ValueRef v : d_.made[p].inputs)
        add_with_readers(v.node);
  for (int32_t id : d_.static_changed) {
    add_with_readers(id);
    for (ValueRef v : node(id).inputs)
      add_with_readers(v.node);
  }
}

} // namespace quarry::rewrite
