//===- rewrite_cost.cc - A rewrite's cost, from its view ------------------===//
#include "quarry/optimizer/rewrite_cost.h"

#include "quarry/runtime/op_config.h"

#include <algorithm>

namespace quarry::opt {

using rewrite::RewriteHost;
using rewrite::RewriteView;

CostIndex::CostIndex(const RewriteHost &host, const CostModel &cost)
    : host_(&host), cost_(&cost), policy_(cost.fusion_policy()) {
  const Graph &g = host.graph();
  const int32_t n = g.num_nodes();
  const std::vector<bool> fixed = g.static_nodes();
  config_.assign(n, 0);
  for (int32_t i = 0; i < n; ++i)
    if (host.is_live(i) && !g.node(i).is_variable())
      config_[i] = runtime::config_hash(g, i, fixed);
  contrib_.assign(n, 0);
  const CostModel::RunningNodes running = cost.running_nodes(g);
  for (size_t k = 0; k < running.nodes.size(); ++k) {
    const int64_t t = cost.known_ticks(running.hashes[k]);
    if (t < 0 || ticks_ < 0) {
      ticks_ = -1;
      continue;
    }
    contrib_[running.nodes[k]] = t;
    ticks_ += t;
  }
}

struct CostScratch::Data {
  /// Host ids in `set` when in_set equals `epoch`.
  uint32_t epoch = 0;
  std::vector<uint32_t> in_set;
  std::vector<int32_t> set, fused_new, anchors, stack, seen;
  std::vector<const TensorType *> types;
  std::vector<bool> fixed;

  void begin(int32_t n) {
    if (static_cast<int32_t>(in_set.size()) < n) {
      in_set.assign(n, 0);
      epoch = 0;
    }
    if (++epoch == 0) {
      std::fill(in_set.begin(), in_set.end(), 0);
      epoch = 1;
    }
    set.clear();
    fused_new.clear();
    anchors.clear();
  }
};

CostScratch::CostScratch() : d_(std::make_unique<Data>()) {}
CostScratch::~CostScratch() = default;
CostScratch::CostScratch(CostScratch &&) noexcept = default;
CostScratch &CostScratch::operator=(CostScratch &&) noexcept = default;

namespace {

/// The host as the fusion policy reads a graph.
class HostView final : public runtime::FusionView {
public:
  explicit HostView(const RewriteHost &h) : h_(h) {}
  const Node &node(int32_t id) const override { return h_.graph().node(id); }
  const Shape &shape(ValueRef v) const override {
    return h_.graph().type(v)->shape;
  }
  bool is_static(ValueRef v) const override { return h_.is_static(v.node); }
  bool is_step(int32_t id) const override { return h_.is_step(id); }
  int32_t sole_reader(ValueRef v) const override {
    for (ValueRef o : h_.graph().outputs())
      if (o == v)
        return -1;
    int count = 0;
    int32_t one = -1;
    for (const RewriteHost::Reader &r : h_.readers(v.node))
      if (r.output == v.output && h_.is_step(r.reader)) {
        ++count;
        one = r.reader;
      }
    return count == 1 ? one : -1;
  }

private:
  const RewriteHost &h_;
};

/// The rewritten graph as the fusion policy reads a graph.
class NewView final : public runtime::FusionView {
public:
  explicit NewView(const RewriteView &v) : v_(v) {}
  const Node &node(int32_t id) const override { return v_.node(id); }
  const Shape &shape(ValueRef v) const override { return v_.type(v)->shape; }
  bool is_static(ValueRef v) const override { return v_.is_static(v.node); }
  bool is_step(int32_t id) const override { return v_.is_step(id); }
  int32_t sole_reader(ValueRef v) const override {
    if (v_.is_output(v))
      return -1;
    int count = 0;
    int32_t one = -1;
    v_.for_each_reader(v, [&](int32_t r) {
      if (v_.is_step(r)) {
        ++count;
        one = r;
      }
    });
    return count == 1 ? one : -1;
  }

private:
  const RewriteView &v_;
};

} // namespace

class RewriteCoster {
public:
  RewriteCoster(const RewriteView &v, const CostIndex &c, CostScratch::Data &d)
      : v_(v), c_(c), h_(*c.host_), d_(d) {
    d_.begin(h_.num_nodes());
  }

  /// The rewritten graph's cost in ticks; -1 when a running configuration
  /// has no cost yet.
  int64_t ticks() {
    if (c_.ticks_ < 0)
      return -1;
    for (int32_t id : v_.changed_nodes())
      add(id);
    if (c_.policy_ && c_.policy_->enabled)
      add_fusion_chains();
    int64_t total = c_.ticks_;
    for (int32_t id : d_.set) {
      if (!v_.is_new(id))
        total -= c_.contrib_[id];
      const Node &n = v_.node(id);
      if (!v_.is_step(id) || op_info(n.kind).traits.uninterpreted ||
          std::find(d_.fused_new.begin(), d_.fused_new.end(), id) !=
              d_.fused_new.end())
        continue;
      const int64_t t = c_.cost_->known_ticks(config_of(id, n));
      if (t < 0)
        return -1;
      total += t;
    }
    return total;
  }

private:
  void add(int32_t id) {
    if (v_.is_new(id)) {
      if (std::find(d_.set.begin(), d_.set.end(), id) == d_.set.end())
        d_.set.push_back(id);
      return;
    }
    if (d_.in_set[id] != d_.epoch) {
      d_.in_set[id] = d_.epoch;
      d_.set.push_back(id);
    }
  }

  /// Every node of the fusion chains through a changed node, in the host
  /// and in the rewritten graph; the rewritten graph's absorbed nodes cost
  /// nothing of their own.
  void add_fusion_chains() {
    const HostView old_view(h_);
    const NewView new_view(v_);
    std::vector<int32_t> &anchors = d_.anchors;
    const size_t seeds = d_.set.size();
    for (size_t k = 0; k < seeds; ++k) {
      const int32_t id = d_.set[k];
      if (!v_.is_new(id) && h_.is_live(id))
        anchors_of(old_view, id, anchors);
      if (v_.in_graph(id))
        anchors_of(new_view, id, anchors);
    }
    std::sort(anchors.begin(), anchors.end());
    anchors.erase(std::unique(anchors.begin(), anchors.end()), anchors.end());
    for (int32_t a : anchors) {
      if (!v_.is_new(a) && h_.is_step(a))
        for (const auto &op : runtime::fused_chain(old_view, a, *c_.policy_))
          add(op.node);
      if (v_.is_step(a))
        for (const auto &op : runtime::fused_chain(new_view, a, *c_.policy_)) {
          add(op.node);
          if (op.node != a)
            d_.fused_new.push_back(op.node);
        }
    }
  }

  /// Anchors whose chains may pass through `id` in `view`.
  void anchors_of(const runtime::FusionView &view, int32_t id,
                  std::vector<int32_t> &out) {
    std::vector<int32_t> &stack = d_.stack, &seen = d_.seen;
    stack.assign(1, id);
    seen.clear();
    while (!stack.empty()) {
      const int32_t at = stack.back();
      stack.pop_back();
      if (std::find(seen.begin(), seen.end(), at) != seen.end() ||
          !view.is_step(at))
        continue;
      seen.push_back(at);
      const Node &n = view.node(at);
      if (c_.policy_->is_anchor(n)) {
        out.push_back(at);
      } else if (runtime::may_join_chain(n)) {
        for (ValueRef v : n.inputs)
          if (!view.is_static(v))
            stack.push_back(v.node);
      }
    }
  }

  /// A node's configuration in the rewritten graph: the host's for a host
  /// node reading the same host nodes, none of whose static flags changed
  /// (configurations see shapes and flags, not values).
  uint64_t config_of(int32_t id, const Node &n) {
    bool same =
        !v_.is_new(id) && !v_.reads_replacement(id) && c_.config_[id] != 0;
    for (size_t k = 0; same && k < n.inputs.size(); ++k) {
      const int32_t in = n.inputs[k].node;
      same = !v_.is_new(in) && v_.is_static(in) == h_.is_static(in);
    }
    if (same)
      return c_.config_[id];
    d_.types.clear();
    d_.fixed.clear();
    for (ValueRef v : n.inputs) {
      d_.types.push_back(v_.type(v));
      d_.fixed.push_back(v_.is_static(v.node));
    }
    return runtime::config_hash(n, d_.types, d_.fixed);
  }

  const RewriteView &v_;
  const CostIndex &c_;
  const RewriteHost &h_;
  CostScratch::Data &d_;
};

std::optional<double> rewrite_cost(const RewriteView &view,
                                   const CostIndex &index,
                                   CostScratch &scratch) {
  const int64_t t = RewriteCoster(view, index, *scratch.d_).ticks();
  if (t < 0)
    return std::nullopt;
  return CostModel::ms_of(t);
}

} // namespace quarry::opt
