//===- fusion.cc - Anchors and the elementwise chains they absorb ---------===//
#include "fusion.h"

#include <algorithm>
#include <map>

namespace quarry::runtime {

namespace {

std::optional<UnaryFn> unary_of(OpKind k) {
  return ops::activation_fn(op_info(k).traits.activation);
}

std::optional<ops::BroadcastFn> binary_of(const Node &n) {
  if (n.inputs.size() != 2)
    return std::nullopt;
  std::optional<ops::BroadcastFn> fn;
  if (n.kind == OpKind::EwAdd)
    fn = ops::BroadcastFn::Add;
  else if (n.kind == OpKind::EwMul)
    fn = ops::BroadcastFn::Mul;
  else if (n.kind == OpKind::Broadcast)
    fn = static_cast<ops::BroadcastFn>(n.attrs.i(ops::Broadcast::kFn));
  // No oneDNN post-op computes pow; comparisons stay steps of their own.
  if (fn == ops::BroadcastFn::Pow || (fn && ops::is_comparison(*fn)))
    return std::nullopt;
  return fn;
}

/// Whether `v` might be the end of some anchor's chain: computed, read by
/// one step alone, and made by an anchor or a node a chain may hold.
bool may_end_chain(const FusionView &g, ValueRef v,
                   const FusionPolicy &policy) {
  if (g.is_static(v) || !g.is_step(v.node) || g.sole_reader(v) < 0)
    return false;
  const Node &n = g.node(v.node);
  return policy.is_anchor(n) || may_join_chain(n);
}

/// The post-op node `id` applies to `cur`, or nullopt when it cannot join.
std::optional<PostOp> post_op_of(const FusionView &g, OpKind anchor, int32_t id,
                                 ValueRef cur, const FusionPolicy &policy) {
  const Node &n = g.node(id);
  if (auto fn = unary_of(n.kind)) {
    if (!policy.unary)
      return std::nullopt;
    PostOp op;
    op.kind = PostOp::Kind::Unary;
    op.unary = *fn;
    op.node = id;
    return op;
  }
  if (n.kind == OpKind::Pointwise) {
    using P = ops::Pointwise;
    const auto fn = static_cast<ops::PointwiseFn>(n.attrs.i(P::kFn));
    if (!policy.pointwise || !policy.pointwise(fn))
      return std::nullopt;
    PostOp op;
    op.kind = PostOp::Kind::Pointwise;
    op.pointwise = fn;
    op.alpha = static_cast<float>(n.attrs.real(P::kAlpha));
    op.beta = static_cast<float>(n.attrs.real(P::kBeta));
    op.node = id;
    return op;
  }
  const auto fn = binary_of(n);
  if (!fn)
    return std::nullopt;
  const int at = n.inputs[0] == cur ? 0 : 1;
  if (at == 1 && !ops::commutative(*fn))
    return std::nullopt;
  const ValueRef other = n.inputs[1 - at];
  // Through the second operand only when the first cannot be another
  // chain's end: a node joins at most one chain, whatever the order.
  if (at == 1 && may_end_chain(g, other, policy))
    return std::nullopt;
  const bool other_static = g.is_static(other);
  if (other_static ? !policy.binary_static : !policy.binary_dynamic)
    return std::nullopt;
  const Shape &result = g.shape(cur);
  if (g.shape({id, 0}) != result)
    return std::nullopt;
  const Shape &other_shape = g.shape(other);
  const auto spread = spread_of(anchor, result, other_shape);
  if (!spread)
    return std::nullopt;
  // A computed full operand is read in the result's layout: same dims.
  if (!other_static && *spread == Spread::Full && other_shape != result)
    return std::nullopt;
  PostOp op;
  op.kind = PostOp::Kind::Binary;
  op.binary = *fn;
  op.operand = other;
  op.operand_static = other_static;
  op.spread = *spread;
  op.node = id;
  return op;
}

/// Node `id` as a view post-op of `cur`, a matmul chain's value: a reshape
/// that keeps the last axis (the one per-channel operands vary along).
std::optional<PostOp> view_of(const FusionView &g, int32_t id, ValueRef cur) {
  const Node &n = g.node(id);
  const Shape &from = g.shape(cur), &to = g.shape({id, 0});
  if (n.kind != OpKind::Reshape || from.rank() == 0 || to.rank() == 0 ||
      from[from.rank() - 1] != to[to.rank() - 1])
    return std::nullopt;
  PostOp op;
  op.kind = PostOp::Kind::View;
  op.node = id;
  return op;
}

/// Batchnorm node `id` (of `cur`) as a post-op, folded into a
/// convolution's weights or applied as a concatenation copies; nullopt
/// where a statistic is computed.
std::optional<PostOp> batchnorm_post_op(const FusionView &g, int32_t id,
                                        bool folded) {
  const Node &n = g.node(id);
  PostOp op;
  op.kind = PostOp::Kind::BatchNorm;
  op.folded = folded;
  for (size_t i = 1; i < n.inputs.size(); ++i) {
    if (!g.is_static(n.inputs[i]))
      return std::nullopt;
    op.statics.push_back(n.inputs[i]);
  }
  op.eps = n.attrs.real(ops::BatchNorm::kEps);
  op.node = id;
  return op;
}

/// Node `id` as a batchnorm folded into convolution `anchor`: it reads
/// `cur` and static values only, and comes first in the chain or after
/// the convolution's static per-channel bias (`post` so far).
std::optional<PostOp> folded_batchnorm(const FusionView &g, int32_t anchor,
                                       const std::vector<PostOp> &post,
                                       int32_t id, ValueRef cur) {
  const Node &a = g.node(anchor), &n = g.node(id);
  if (a.kind != OpKind::Conv2D || n.kind != OpKind::BatchNorm ||
      !g.is_static(a.inputs[1]) || n.inputs[0] != cur)
    return std::nullopt;
  const bool after_bias =
      post.size() == 1 && post[0].kind == PostOp::Kind::Binary &&
      post[0].binary == ops::BroadcastFn::Add &&
      post[0].spread == Spread::PerChannel && post[0].operand_static;
  if (!post.empty() && !after_bias)
    return std::nullopt;
  return batchnorm_post_op(g, id, true);
}

/// Node `id` as a batchnorm that concatenation `anchor` applies to `cur`,
/// its 4-D result along channels: first in the chain, of static
/// statistics.
std::optional<PostOp> applied_batchnorm(const FusionView &g, int32_t anchor,
                                        const std::vector<PostOp> &post,
                                        int32_t id, ValueRef cur) {
  const Node &a = g.node(anchor), &n = g.node(id);
  if (a.kind != OpKind::Concat || n.kind != OpKind::BatchNorm ||
      !post.empty() || n.inputs[0] != cur || g.shape(cur).rank() != 4 ||
      a.attrs.i(ops::Concat::kAxis) != 1)
    return std::nullopt;
  return batchnorm_post_op(g, id, false);
}

/// A built graph and its plan, as the chain walk reads them.
class PlanView final : public FusionView {
public:
  PlanView(const Graph &g, const Plan &p) : g_(g), p_(p), step_(g.num_nodes()) {
    for (int32_t id : p.steps) {
      step_[id] = true;
      for (ValueRef v : g.node(id).inputs) {
        auto [it, fresh] = reader_.emplace(v, id);
        if (!fresh)
          it->second = -1;
      }
    }
    for (ValueRef v : g.outputs())
      reader_[v] = -1;
  }
  const Node &node(int32_t id) const override { return g_.node(id); }
  const Shape &shape(ValueRef v) const override {
    return p_.value(v).type.shape;
  }
  bool is_static(ValueRef v) const override { return p_.value(v).is_static; }
  bool is_step(int32_t id) const override { return step_[id]; }
  int32_t sole_reader(ValueRef v) const override {
    auto it = reader_.find(v);
    return it == reader_.end() ? -1 : it->second;
  }

private:
  const Graph &g_;
  const Plan &p_;
  std::vector<bool> step_;
  /// The one step reading each value, -1 for several or an output.
  std::map<ValueRef, int32_t> reader_;
};

} // namespace

/// fused_chain, taking as post-ops the composites of `composite_of` (by
/// their x) where the policy applies their function.
std::vector<PostOp>
chain_of(const FusionView &g, int32_t anchor, const FusionPolicy &policy,
         const std::map<ValueRef, const Composite *> &composite_of);

std::vector<ValueRef> PostOp::operands() const {
  if (kind == Kind::Binary)
    return {operand};
  if (kind == Kind::BatchNorm)
    return statics;
  return {};
}

std::string PostOp::str() const {
  if (kind == Kind::View)
    return "view";
  if (kind == Kind::BatchNorm)
    return folded ? "batchnorm(folded)" : "batchnorm";
  if (kind == Kind::Pointwise)
    return std::string(ops::kPointwiseNames[static_cast<int>(pointwise)]);
  if (kind == Kind::Unary) {
    static constexpr const char *kNames[] = {"relu", "sigmoid", "tanh",
                                             "invsqrt"};
    return kNames[static_cast<int>(unary)];
  }
  static constexpr const char *kSpread[] = {"scalar", "per-channel", "full"};
  return std::string(ops::kBroadcastNames[static_cast<int>(binary)]) + "(" +
         kSpread[static_cast<int>(spread)] + (accumulate ? ", in place" : "") +
         ")";
}

std::optional<Spread> spread_of(OpKind anchor, const Shape &result,
                                const Shape &operand) {
  if (operand.rank() > result.rank())
    return std::nullopt;
  const int off = result.rank() - operand.rank();
  // The axis a per-channel operand varies along.
  const int channel = anchor == OpKind::MatMul ? result.rank() - 1 : 1;
  bool full = true, scalar = true, per_channel = true;
  for (int i = 0; i < result.rank(); ++i) {
    const int64_t d = i >= off ? operand[i - off] : 1;
    if (d != 1 && d != result[i])
      return std::nullopt; // it would enlarge the result
    full = full && d == result[i];
    scalar = scalar && d == 1;
    per_channel = per_channel && (i == channel ? d == result[i] : d == 1);
  }
  if (full)
    return Spread::Full;
  if (scalar)
    return Spread::Scalar;
  if (per_channel && channel >= 0)
    return Spread::PerChannel;
  return std::nullopt;
}

std::vector<bool> absorbed_nodes(const Graph &g, const FusionPolicy &policy) {
  std::vector<bool> absorbed(g.num_nodes(), false);
  if (!policy.enabled)
    return absorbed;
  const Plan p = plan_shapes(g);
  for (const FusedStep &s : fuse_steps(g, p, policy))
    for (size_t i = 1; i < s.nodes.size(); ++i)
      absorbed[s.nodes[i]] = true;
  return absorbed;
}

std::vector<ScheduledStep> schedule_of(const Graph &g, const Plan &p,
                                       const std::vector<FusedStep> &steps) {
  std::vector<ScheduledStep> schedule;
  for (const FusedStep &s : steps) {
    ScheduledStep step{step_node(g, s).inputs, {}};
    for (const PostOp &op : s.post)
      for (ValueRef v : op.operands())
        step.reads.push_back(v);
    if (s.fused())
      step.writes.push_back(s.result());
    else
      for (size_t o = 0; o < p.values[s.anchor].size(); ++o)
        step.writes.push_back({s.anchor, static_cast<int32_t>(o)});
    schedule.push_back(std::move(step));
  }
  return schedule;
}

std::vector<PostOp> own_activation(const Node &n, int32_t id) {
  std::vector<PostOp> post;
  size_t act_attr = 0;
  if (n.kind == OpKind::Conv2D)
    act_attr = ops::Conv2D::kAct;
  else if (n.kind == OpKind::MatMul)
    act_attr = ops::MatMul::kAct;
  else
    return post;
  if (auto fn =
          ops::activation_fn(static_cast<Activation>(n.attrs.i(act_attr)))) {
    PostOp op;
    op.unary = *fn;
    op.node = id;
    post.push_back(op);
  }
  return post;
}

bool FusionPolicy::is_anchor(const Node &n) const {
  return (n.kind == OpKind::Conv2D && conv2d) ||
         (n.kind == OpKind::MatMul && matmul) ||
         ((n.kind == OpKind::Pool2DAvg || n.kind == OpKind::Pool2DMax) &&
          pool2d) ||
         (n.kind == OpKind::BatchNorm && batchnorm) ||
         (n.kind == OpKind::Concat && concat);
}

bool may_join_chain(const Node &n) {
  return unary_of(n.kind).has_value() || binary_of(n).has_value() ||
         n.kind == OpKind::Pointwise || n.kind == OpKind::BatchNorm ||
         n.kind == OpKind::Reshape; // a matmul chain's view (view_of)
}

std::vector<PostOp> fused_chain(const FusionView &g, int32_t anchor,
                                const FusionPolicy &policy) {
  return chain_of(g, anchor, policy, {});
}

std::vector<PostOp>
chain_of(const FusionView &g, int32_t anchor, const FusionPolicy &policy,
         const std::map<ValueRef, const Composite *> &composite_of) {
  const Node &n = g.node(anchor);
  if (!policy.enabled || !policy.is_anchor(n))
    return {};
  std::vector<PostOp> post = own_activation(n, anchor);
  const size_t own = post.size();
  ValueRef cur{anchor, 0};
  while (true) {
    // A composite of the value so far, when it alone reads it.
    if (auto c = composite_of.find(cur);
        c != composite_of.end() && policy.pointwise &&
        policy.pointwise(*c->second->pointwise())) {
      PostOp op;
      op.kind = PostOp::Kind::Pointwise;
      op.pointwise = *c->second->pointwise();
      op.node = c->second->nodes.back();
      op.inner.assign(c->second->nodes.begin(), c->second->nodes.end() - 1);
      post.push_back(std::move(op));
      cur = {post.back().node, 0};
      continue;
    }
    const int32_t next = g.sole_reader(cur);
    if (next < 0)
      break;
    std::optional<PostOp> op;
    if (n.kind == OpKind::Concat) {
      // A concatenation's chain starts with the batchnorm it applies.
      op = post.empty() ? applied_batchnorm(g, anchor, post, next, cur)
                        : post_op_of(g, n.kind, next, cur, policy);
    } else {
      op = n.kind == OpKind::MatMul ? view_of(g, next, cur)
           : policy.batchnorm_folds
               ? folded_batchnorm(g, anchor, post, next, cur)
               : std::optional<PostOp>();
      if (!op)
        op = post_op_of(g, n.kind, next, cur, policy);
    }
    if (!op)
      break;
    post.push_back(*op);
    cur = {next, 0};
  }
  while (post.size() > own && post.back().kind == PostOp::Kind::View)
    post.pop_back();
  // Nodes past the accepted prefix run alone, at their own places.
  if (policy.accept && post.size() > own)
    post.resize(std::max(own, std::min(post.size(), policy.accept(n, post))));
  return post;
}

std::vector<FusedStep> fuse_steps(const Graph &g, const Plan &p,
                                  const FusionPolicy &policy,
                                  const Composites *composites) {
  const PlanView view(g, p);
  std::vector<bool> absorbed(g.num_nodes(), false);
  // The composites a chain may take: those that alone read their x.
  std::map<ValueRef, const Composite *> composite_of;
  if (composites && policy.enabled)
    for (const auto &[first, c] : *composites)
      if (c.reads_x_alone && c.pointwise())
        composite_of.emplace(c.x(), &c);
  // Where each fused step runs: at its last node's place in p.steps.
  std::map<int32_t, FusedStep> ends_at;
  for (int32_t id : p.steps) {
    if (absorbed[id])
      continue;
    FusedStep s;
    const Composite *alone = nullptr;
    if (composites && policy.enabled)
      if (auto c = composites->find(id); c != composites->end())
        alone = &c->second;
    if (alone) {
      // No chain took it: it runs alone, as the one operator it is.
      s.anchor = alone->nodes.back();
      s.nodes = alone->nodes;
      s.as = alone->as;
      for (int32_t n : s.nodes)
        absorbed[n] = true;
      ends_at.emplace(s.nodes.back(), std::move(s));
      continue;
    }
    s.anchor = id;
    s.nodes = {id};
    s.post = own_activation(g.node(id), id);
    if (std::vector<PostOp> chain = chain_of(view, id, policy, composite_of);
        !chain.empty()) {
      s.post = std::move(chain);
      for (const PostOp &op : s.post)
        if (op.node != id) {
          for (int32_t n : op.inner) {
            s.nodes.push_back(n);
            absorbed[n] = true;
          }
          s.nodes.push_back(op.node);
          absorbed[op.node] = true;
        }
    }
    ends_at.emplace(s.nodes.back(), std::move(s));
  }
  std::vector<FusedStep> out;
  for (int32_t id : p.steps)
    if (auto it = ends_at.find(id); it != ends_at.end())
      out.push_back(std::move(it->second));
  return out;
}

} // namespace quarry::runtime
