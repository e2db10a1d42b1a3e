//===- fusions.cc - Hand-written rewrites TASO also uses ------------------===//
#include "quarry/rewrite/fusions.h"

#include "quarry/rewrite/splice.h"

namespace quarry::rewrite {

namespace {

/// Users of each node's first output, as (user node) lists.
std::vector<std::vector<int32_t>> users_of(const Graph &g) {
  std::vector<std::vector<int32_t>> users(g.num_nodes());
  for (int32_t id = 0; id < g.num_nodes(); ++id)
    for (ValueRef v : g.node(id).inputs)
      if (v.output == 0)
        users[v.node].push_back(id);
  return users;
}

std::optional<Activation> activation_of(OpKind k) {
  const Activation a = op_info(k).traits.activation;
  return a == Activation::None ? std::nullopt : std::optional(a);
}

size_t act_index(OpKind k) {
  return k == OpKind::Conv2D ? size_t{ops::Conv2D::kAct}
                             : size_t{ops::MatMul::kAct};
}

} // namespace

std::vector<OwnedSplice> propose_fuse_activation(const HostInfo &host) {
  const Graph &g = *host.graph;
  const auto users = users_of(g);
  const auto uses = g.use_counts();
  std::vector<OwnedSplice> out;
  for (OpKind kind : {OpKind::Conv2D, OpKind::MatMul})
    for (int32_t id : host.by_kind[static_cast<size_t>(kind)]) {
      const Node &n = g.node(id);
      if (n.attrs.i(act_index(kind)) !=
              static_cast<int64_t>(Activation::None) ||
          uses[id] != 1 || users[id].size() != 1)
        continue;
      const int32_t user = users[id][0];
      const auto act = activation_of(g.node(user).kind);
      if (!act)
        continue;
      auto pat = std::make_shared<Graph>();
      Attrs attrs = n.attrs;
      attrs.set(act_index(kind), static_cast<int64_t>(*act));
      pat->mark_output(
          pat->add1(kind, attrs, {pat->input("a"), pat->input("b")}));
      out.push_back({pat,
                     {pat.get(),
                      {{"a", n.inputs[0]}, {"b", n.inputs[1]}},
                      {},
                      {{user, 0}}}});
    }
  return out;
}

namespace {

/// Equal parameters and static weights; on one input the kernels may
/// differ in output channels, on two inputs all shapes must agree.
bool mergeable(const Graph &g, const HostInfo &host, int32_t a, int32_t b) {
  const Node &na = g.node(a), &nb = g.node(b);
  if (na.attrs != nb.attrs || na.types.empty() || nb.types.empty())
    return false;
  if (!host.is_static[na.inputs[1].node] || !host.is_static[nb.inputs[1].node])
    return false;
  Shape wa = g.type(na.inputs[1])->shape, wb = g.type(nb.inputs[1])->shape;
  if (na.inputs[0] == nb.inputs[0]) {
    // Ungrouped only: concatenated kernels keep their groups apart only
    // when there is one group.
    if (wa[1] != g.type(na.inputs[0])->shape[1])
      return false;
    wa[0] = wb[0];
  }
  return wa == wb && g.type(na.inputs[0])->shape == g.type(nb.inputs[0])->shape;
}

OwnedSplice merge_pair(const Graph &g, int32_t a, int32_t b) {
  const Node &na = g.node(a), &nb = g.node(b);
  const int64_t ca = na.types[0].shape[1], cb = nb.types[0].shape[1];
  const bool shared = na.inputs[0] == nb.inputs[0];
  auto owned = std::make_shared<Graph>();
  Graph &pat = *owned;
  const ValueRef w = pat.add1(OpKind::Concat, make_attrs(OpKind::Concat),
                              {pat.input("w1"), pat.input("w2")});
  ValueRef x = pat.input("x1");
  if (!shared)
    x = pat.add1(OpKind::Concat,
                 make_attrs(OpKind::Concat, {{"axis", int64_t{1}}}),
                 {x, pat.input("x2")});
  const ValueRef y = pat.add1(OpKind::Conv2D, na.attrs, {x, w});
  const auto parts = pat.add(
      OpKind::Split,
      make_attrs(OpKind::Split, {{"axis", int64_t{1}},
                                 {"sizes", std::vector<int64_t>{ca, cb}}}),
      {y});
  pat.mark_output(parts[0]);
  pat.mark_output(parts[1]);
  Splice s{&pat,
           {{"x1", na.inputs[0]}, {"w1", na.inputs[1]}, {"w2", nb.inputs[1]}},
           {},
           {{a, 0}, {b, 0}}};
  if (!shared)
    s.bindings.emplace("x2", nb.inputs[0]);
  return {std::move(owned), std::move(s)};
}

} // namespace

std::vector<OwnedSplice> propose_merge_conv(const HostInfo &host) {
  const Graph &g = *host.graph;
  const auto &convs = host.by_kind[static_cast<size_t>(OpKind::Conv2D)];
  std::vector<OwnedSplice> out;
  for (size_t i = 0; i < convs.size(); ++i) {
    int partners = 0;
    for (size_t j = i + 1; j < convs.size() && partners < kMergeConvPartners;
         ++j) {
      if (!mergeable(g, host, convs[i], convs[j]))
        continue;
      ++partners;
      out.push_back(merge_pair(g, convs[i], convs[j]));
    }
  }
  return out;
}

namespace {
std::vector<Graph> made(const HostInfo &host,
                        const std::vector<OwnedSplice> &proposals) {
  std::vector<Graph> out;
  for (const OwnedSplice &p : proposals)
    if (auto g = splice(*host.graph, p.splice))
      out.push_back(std::move(*g));
  return out;
}
} // namespace

std::vector<Graph> fuse_activation(const HostInfo &host) {
  return made(host, propose_fuse_activation(host));
}

std::vector<Graph> merge_conv(const HostInfo &host) {
  return made(host, propose_merge_conv(host));
}

std::span<const Fusion> fusions() {
  static const Fusion list[] = {{"fuse_activation", propose_fuse_activation},
                                {"merge_conv", propose_merge_conv}};
  return list;
}

} // namespace quarry::rewrite
