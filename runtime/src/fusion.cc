//===- fusion.cc - Anchors and the elementwise chains they absorb ---------===//
#include "fusion.h"

#include <algorithm>
#include <map>

namespace quarry::runtime {

namespace {

std::optional<UnaryFn> unary_of(OpKind k) {
  switch (k) {
  case OpKind::Relu:
    return UnaryFn::Relu;
  case OpKind::Sigmoid:
    return UnaryFn::Sigmoid;
  case OpKind::Tanh:
    return UnaryFn::Tanh;
  default:
    return std::nullopt;
  }
}

std::optional<UnaryFn> activation_fn(Activation a) {
  switch (a) {
  case Activation::None:
    return std::nullopt;
  case Activation::Relu:
    return UnaryFn::Relu;
  case Activation::Sigmoid:
    return UnaryFn::Sigmoid;
  case Activation::Tanh:
    return UnaryFn::Tanh;
  }
  return std::nullopt;
}

bool is_anchor(const Node &n, const FusionPolicy &policy) {
  return (n.kind == OpKind::Conv2D && policy.conv2d) ||
         (n.kind == OpKind::MatMul && policy.matmul);
}

/// The post-op node `n` applies to `cur`, or nullopt when it cannot join.
std::optional<PostOp> post_op_of(const Plan &p, OpKind anchor, const Node &n,
                                 int32_t id, ValueRef cur,
                                 const FusionPolicy &policy) {
  if (auto fn = unary_of(n.kind)) {
    if (!policy.unary)
      return std::nullopt;
    PostOp op;
    op.kind = PostOp::Kind::Unary;
    op.unary = *fn;
    op.node = id;
    return op;
  }
  ops::BroadcastFn fn;
  if (n.kind == OpKind::EwAdd)
    fn = ops::BroadcastFn::Add;
  else if (n.kind == OpKind::EwMul)
    fn = ops::BroadcastFn::Mul;
  else if (n.kind == OpKind::Broadcast)
    fn = static_cast<ops::BroadcastFn>(n.attrs.i(ops::Broadcast::kFn));
  else
    return std::nullopt;
  if (fn == ops::BroadcastFn::Pow || n.inputs.size() != 2)
    return std::nullopt;
  const int at = n.inputs[0] == cur ? 0 : 1;
  if (at == 1 && !ops::commutative(fn))
    return std::nullopt;
  const ValueRef other = n.inputs[1 - at];
  const bool other_static = p.value(other).is_static;
  if (other_static ? !policy.binary_static : !policy.binary_dynamic)
    return std::nullopt;
  const Shape &result = p.value(cur).type.shape;
  if (p.values[id][0].type.shape != result)
    return std::nullopt;
  const Shape &other_shape = p.value(other).type.shape;
  const auto spread = spread_of(anchor, result, other_shape);
  if (!spread)
    return std::nullopt;
  // A computed full operand is read in the result's layout: same dims.
  if (!other_static && *spread == Spread::Full && other_shape != result)
    return std::nullopt;
  PostOp op;
  op.kind = PostOp::Kind::Binary;
  op.binary = fn;
  op.operand = other;
  op.operand_static = other_static;
  op.spread = *spread;
  op.node = id;
  return op;
}

} // namespace

std::string PostOp::str() const {
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
  const int channel = anchor == OpKind::Conv2D ? 1 : result.rank() - 1;
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
    ScheduledStep step{g.node(s.anchor).inputs, {}};
    for (const PostOp &op : s.post)
      if (op.kind == PostOp::Kind::Binary)
        step.reads.push_back(op.operand);
    if (s.fused())
      step.writes.push_back(s.result());
    else
      for (size_t o = 0; o < p.values[s.anchor].size(); ++o)
        step.writes.push_back({s.anchor, static_cast<int32_t>(o)});
    schedule.push_back(std::move(step));
  }
  return schedule;
}

std::vector<PostOp> own_activation(const Graph &g, int32_t anchor) {
  const Node &n = g.node(anchor);
  std::vector<PostOp> post;
  size_t act_attr = 0;
  if (n.kind == OpKind::Conv2D)
    act_attr = ops::Conv2D::kAct;
  else if (n.kind == OpKind::MatMul)
    act_attr = ops::MatMul::kAct;
  else
    return post;
  if (auto fn = activation_fn(static_cast<Activation>(n.attrs.i(act_attr)))) {
    PostOp op;
    op.unary = *fn;
    op.node = anchor;
    post.push_back(op);
  }
  return post;
}

std::vector<FusedStep> fuse_steps(const Graph &g, const Plan &p,
                                  const FusionPolicy &policy) {
  // Readers of each value among the steps, counted once per operand.
  std::map<ValueRef, std::vector<int32_t>> readers;
  for (int32_t id : p.steps)
    for (ValueRef v : g.node(id).inputs)
      readers[v].push_back(id);
  std::map<ValueRef, bool> is_output;
  for (ValueRef v : g.outputs())
    is_output[v] = true;

  std::vector<bool> absorbed(g.num_nodes(), false);
  // Where each fused step runs: at its last node's place in p.steps.
  std::map<int32_t, FusedStep> ends_at;
  for (int32_t id : p.steps) {
    if (absorbed[id])
      continue;
    const Node &n = g.node(id);
    FusedStep s;
    s.anchor = id;
    s.nodes = {id};
    s.post = own_activation(g, id);
    if (policy.enabled && is_anchor(n, policy)) {
      ValueRef cur{id, 0};
      while (!is_output.count(cur)) {
        auto it = readers.find(cur);
        if (it == readers.end() || it->second.size() != 1)
          break;
        const int32_t next = it->second[0];
        if (absorbed[next])
          break;
        auto op = post_op_of(p, n.kind, g.node(next), next, cur, policy);
        if (!op)
          break;
        s.post.push_back(*op);
        s.nodes.push_back(next);
        absorbed[next] = true;
        cur = {next, 0};
      }
      if (policy.accept && s.fused()) {
        // Nodes past the accepted prefix run alone, at their own places.
        const size_t own = s.post.size() + 1 - s.nodes.size();
        const size_t keep = std::max(own, policy.accept(n, s.post));
        while (s.post.size() > keep) {
          absorbed[s.nodes.back()] = false;
          s.nodes.pop_back();
          s.post.pop_back();
        }
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
