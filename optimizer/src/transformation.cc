//===- transformation.cc - Rules and fusions as graph rewrites ------------===//
#include "quarry/optimizer/transformation.h"

#include "quarry/optimizer/fusions.h"
#include "quarry/optimizer/splice.h"

namespace quarry::opt {

namespace {

bool preconditions_hold(const HostInfo &host, const Rule &rule,
                        const Match &m) {
  for (const DimEquality &c : rule.preconditions) {
    auto a = m.bindings.find(c.var), b = m.bindings.find(c.other_var);
    if (a == m.bindings.end() || b == m.bindings.end())
      return false;
    const TensorType *ta = host.graph->type(a->second);
    const TensorType *tb = host.graph->type(b->second);
    if (!ta || !tb || c.dim >= ta->rank() || c.other_dim >= tb->rank() ||
        ta->shape[c.dim] != tb->shape[c.other_dim])
      return false;
  }
  return true;
}

/// Whether every convolution of `pattern` (host node ids in `ids`) is
/// ungrouped, or reads a depthwise constant (const_pool).
bool ungrouped(const Graph &pattern, const Graph &g,
               const std::vector<int32_t> &ids) {
  for (int32_t id = 0; id < pattern.num_nodes(); ++id) {
    const Node &n = pattern.node(id);
    if (n.kind != OpKind::Conv2D ||
        pattern.node(n.inputs[1].node).kind == OpKind::ConstPool)
      continue;
    if (ids[id] < 0)
      return false;
    const Node &h = g.node(ids[id]);
    const TensorType *x = g.type(h.inputs[0]);
    const TensorType *w = g.type(h.inputs[1]);
    if (!x || !w || x->shape[1] != w->shape[1])
      return false;
  }
  return true;
}

} // namespace

std::optional<Graph> apply_rule(const HostInfo &host, const Rule &rule,
                                const Match &m) {
  if (!preconditions_hold(host, rule, m))
    return std::nullopt;
  // The conv2d axioms (axioms/taso.axioms) hold for ungrouped convolutions
  // (weights [co, c, kh, kw] on c input channels), except the grouped
  // merge, whose rules carry preconditions, and the depthwise const_pool.
  // Rules proved (or, TASO's, stated) without grouping are wrong on grouped
  // kernels, so without preconditions every convolution of the source and
  // of the target must be ungrouped.
  const bool any_groups = !rule.preconditions.empty();
  if (!any_groups && !ungrouped(rule.source, *host.graph, m.nodes))
    return std::nullopt;
  Splice s;
  s.pattern = &rule.target;
  s.bindings = m.bindings;
  s.replaced = m.outputs;
  std::vector<int32_t> ids;
  auto g = splice(*host.graph, s, &ids);
  if (g && !any_groups && !ungrouped(rule.target, *g, ids))
    return std::nullopt;
  return g;
}

std::vector<Graph> Transformation::apply(const HostInfo &host,
                                         size_t limit) const {
  std::vector<Graph> out;
  for_each(host, limit, [&](int, Graph &&g) { out.push_back(std::move(g)); });
  return out;
}

void Transformation::for_each(
    const HostInfo &host, size_t limit,
    const std::function<void(int ordinal, Graph &&)> &f) const {
  if (fusion) {
    std::vector<Graph> out = fusion(host);
    for (size_t i = 0; i < out.size() && i < limit; ++i)
      f(static_cast<int>(i), std::move(out[i]));
    return;
  }
  const std::vector<Match> matches = find_matches(host, rule->source, limit);
  for (size_t i = 0; i < matches.size(); ++i)
    if (auto g = apply_rule(host, *rule, matches[i]))
      f(static_cast<int>(i), std::move(*g));
}

std::optional<Graph> Transformation::apply_at(const HostInfo &host,
                                              int ordinal) const {
  if (fusion) {
    std::vector<Graph> out = fusion(host);
    if (ordinal < 0 || static_cast<size_t>(ordinal) >= out.size())
      return std::nullopt;
    return std::move(out[ordinal]);
  }
  // Matches come in a fixed order, so the first ordinal+1 are the same.
  const std::vector<Match> matches =
      find_matches(host, rule->source, static_cast<size_t>(ordinal) + 1);
  if (ordinal < 0 || static_cast<size_t>(ordinal) >= matches.size())
    return std::nullopt;
  return apply_rule(host, *rule, matches[ordinal]);
}

std::vector<Transformation> make_transformations(const RulePack &pack,
                                                 bool with_fusions) {
  std::vector<Transformation> t;
  for (const Rule &r : pack.rules)
    t.push_back({r.name, &r, {}});
  if (with_fusions)
    for (const Fusion &f : fusions())
      t.push_back({std::string(f.name), nullptr, f.run});
  return t;
}

} // namespace quarry::opt
