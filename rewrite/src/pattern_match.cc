//===- pattern_match.cc - Finding a rule's source in a graph --------------===//
//
// Backtracking over the pattern's operators from the last (the outputs) to
// the first: an operator whose user is already matched is forced to the
// user's operand; one that no matched operator uses is tried against every
// host node of its kind.
//
//===----------------------------------------------------------------------===//
#include "quarry/rewrite/pattern_match.h"

#include <algorithm>
#include <array>
#include <optional>

namespace quarry::rewrite {

HostInfo::HostInfo(const Graph &g)
    : graph(&g), is_static(g.static_nodes()), by_kind(kNumOps) {
  for (int32_t id = 0; id < g.num_nodes(); ++id)
    if (!g.node(id).is_variable()) {
      by_kind[static_cast<size_t>(g.node(id).kind)].push_back(id);
      kinds.set(static_cast<size_t>(g.node(id).kind));
    }
}

std::bitset<kNumOps> operator_kinds(const Graph &pattern) {
  std::bitset<kNumOps> k;
  for (const Node &n : pattern.nodes())
    if (!n.is_variable())
      k.set(static_cast<size_t>(n.kind));
  return k;
}

namespace {

/// A partial match, by pattern node id: the host node of each operator,
/// the host value of each variable (node -1 while unbound). One state is
/// changed in place; `trail` lists what was bound, so a choice is undone by
/// unbinding back to the trail's length before it.
struct State {
  std::vector<int32_t> nodes;
  std::vector<ValueRef> values;
  std::vector<int32_t> trail;

  void undo_to(size_t mark) {
    while (trail.size() > mark) {
      const int32_t id = trail.back();
      trail.pop_back();
      nodes[id] = -1;
      values[id] = {-1, 0};
    }
  }
};

/// A split without sizes cuts at the boundary its operand records.
bool split_at_boundary(const Graph &g, const Node &h) {
  if (h.num_outputs != 2 || h.types.size() != 2)
    return false;
  const int axis = static_cast<int>(h.attrs.i(ops::Split::kAxis));
  const TensorType *x = g.type(h.inputs[0]);
  if (!x || !x->split(axis))
    return false;
  return x->split(axis)->left == h.types[0].shape[axis];
}

bool params_agree(const Graph &g, const Node &p, const Node &h) {
  if (p.num_outputs != h.num_outputs || p.inputs.size() != h.inputs.size())
    return false;
  for (size_t i = 0; i < p.attrs.size(); ++i) {
    if (!p.attrs.has(i))
      continue; // left open by the pattern
    if (p.attrs.value(i) != h.attrs.value(i))
      return false;
  }
  if (p.kind == OpKind::Split && !p.attrs.has(ops::Split::kSizes))
    return split_at_boundary(g, h);
  // An absent dilation means 1,1, not "any": the rules were proved for
  // adjacent taps only.
  if (p.kind == OpKind::Conv2D &&
      ops::Conv2D::dilation(p.attrs) != ops::Conv2D::dilation(h.attrs))
    return false;
  return true;
}

class Matcher {
public:
  Matcher(const HostInfo &host, const Graph &pattern, size_t limit,
          const std::function<void(const MatchSite &)> &found)
      : host_(host), g_(*host.graph), p_(pattern), limit_(limit), found_(found),
        agreeing_(pattern.num_nodes()) {
    for (int32_t id = pattern.num_nodes() - 1; id >= 0; --id)
      if (!pattern.node(id).is_variable())
        order_.push_back(id);
  }

  void run() {
    State s;
    s.nodes.assign(p_.num_nodes(), -1);
    s.values.assign(p_.num_nodes(), ValueRef{-1, 0});
    step(0, s);
  }

private:
  void step(size_t k, State &s) {
    if (count_ >= limit_)
      return;
    if (k == order_.size()) {
      record(s);
      return;
    }
    const int32_t pid = order_[k];
    const Node &p = p_.node(pid);
    if (s.nodes[pid] >= 0) {
      // bind() checked its kind, not its parameters.
      if (params_agree(g_, p, g_.node(s.nodes[pid])))
        try_node(k, s, pid, s.nodes[pid]);
      return;
    }
    for (int32_t hid : agreeing(pid)) {
      if (used(s, hid))
        continue;
      const size_t mark = s.trail.size();
      s.nodes[pid] = hid;
      s.trail.push_back(pid);
      try_node(k, s, pid, hid);
      s.undo_to(mark);
      if (count_ >= limit_)
        return;
    }
  }

  /// The host nodes whose kind and parameters agree with pattern node
  /// `pid`, in id order. A pattern of unconnected parts tries every node
  /// for its second part once per choice for its first.
  const std::vector<int32_t> &agreeing(int32_t pid) {
    std::optional<std::vector<int32_t>> &list = agreeing_[pid];
    if (!list) {
      list.emplace();
      const Node &p = p_.node(pid);
      for (int32_t hid : host_.by_kind[static_cast<size_t>(p.kind)])
        if (params_agree(g_, p, g_.node(hid)))
          list->push_back(hid);
    }
    return *list;
  }

  static bool used(const State &s, int32_t hid) {
    return std::find(s.nodes.begin(), s.nodes.end(), hid) != s.nodes.end();
  }

  /// Binds the operands of `hid`, which agrees with pattern node `pid`.
  void try_node(size_t k, State &s, int32_t pid, int32_t hid) {
    const Node &p = p_.node(pid);
    const Node &h = g_.node(hid);
    const bool swap =
        op_info(p.kind).traits.commutative && p.inputs.size() == 2;
    for (int order = 0; order < (swap ? 2 : 1); ++order) {
      const size_t mark = s.trail.size();
      bool ok = true;
      for (size_t i = 0; ok && i < p.inputs.size(); ++i) {
        const size_t hi = order == 0 ? i : 1 - i;
        ok = bind(s, p.inputs[i], h.inputs[hi]);
      }
      if (ok)
        step(k + 1, s);
      s.undo_to(mark);
      if (count_ >= limit_)
        return;
    }
  }

  bool bind(State &s, ValueRef pv, ValueRef hv) {
    const Node &pn = p_.node(pv.node);
    if (pn.is_variable()) {
      ValueRef &bound = s.values[pv.node];
      if (bound.node >= 0)
        return bound == hv;
      if (pn.kind == OpKind::Weight && !host_.is_static[hv.node])
        return false;
      bound = hv;
      s.trail.push_back(pv.node);
      return true;
    }
    if (pv.output != hv.output || g_.node(hv.node).kind != pn.kind)
      return false;
    if (s.nodes[pv.node] >= 0)
      return s.nodes[pv.node] == hv.node;
    if (used(s, hv.node))
      return false;
    s.nodes[pv.node] = hv.node;
    s.trail.push_back(pv.node);
    return true;
  }

  void record(const State &s) {
    outputs_.clear();
    for (ValueRef v : p_.outputs()) {
      if (p_.node(v.node).is_variable()) {
        if (s.values[v.node].node < 0)
          return;
        outputs_.push_back(s.values[v.node]);
      } else {
        outputs_.push_back({s.nodes[v.node], v.output});
      }
    }
    ++count_;
    found_({&p_, s.nodes, s.values, outputs_});
  }

  const HostInfo &host_;
  const Graph &g_;
  const Graph &p_;
  size_t limit_;
  const std::function<void(const MatchSite &)> &found_;
  std::vector<int32_t> order_;
  std::vector<ValueRef> outputs_;
  std::vector<std::optional<std::vector<int32_t>>> agreeing_;
  size_t count_ = 0;
};

} // namespace

Match MatchSite::to_match() const {
  Match m;
  m.nodes.assign(nodes.begin(), nodes.end());
  for (int32_t id = 0; id < pattern->num_nodes(); ++id)
    if (pattern->node(id).is_variable() && values[id].node >= 0)
      m.bindings.emplace(pattern->node(id).name, values[id]);
  m.outputs.assign(outputs.begin(), outputs.end());
  return m;
}

namespace {

/// Whether the host has at least as many operators of each kind as the
/// pattern (pattern operators bind distinct host nodes), asked before a
/// Matcher, which allocates, is made. A Transformation has already asked
/// whether the host has each kind at all (Transformation::needs).
bool host_has_the_kinds(const HostInfo &host, const Graph &pattern) {
  std::array<uint32_t, kNumOps> need{};
  for (const Node &n : pattern.nodes()) {
    if (n.is_variable())
      continue;
    const auto k = static_cast<size_t>(n.kind);
    if (++need[k] > host.by_kind[k].size())
      return false;
  }
  return true;
}

} // namespace

void for_each_match(const HostInfo &host, const Graph &pattern, size_t limit,
                    const std::function<void(const MatchSite &)> &f) {
  if (host_has_the_kinds(host, pattern))
    Matcher(host, pattern, limit, f).run();
}

std::vector<Match> find_matches(const HostInfo &host, const Graph &pattern,
                                size_t limit) {
  std::vector<Match> out;
  for_each_match(host, pattern, limit,
                 [&](const MatchSite &m) { out.push_back(m.to_match()); });
  return out;
}

} // namespace quarry::rewrite
