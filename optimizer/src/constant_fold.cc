//===- constant_fold.cc - Folding weight-only subgraphs into weights ------===//
#include "quarry/optimizer/constant_fold.h"

#include "quarry/core/evaluate.h"
#include "quarry/core/float_domain.h"
#include "quarry/rewrite/splice.h"
#include "quarry/runtime/plan.h"
#include "quarry/runtime/run_inputs.h"

#include <algorithm>

namespace quarry::opt {

Model complete_weights(const Model &m, uint64_t seed) {
  Model out = m;
  const auto missing = [&](const Node &n) {
    return n.kind == OpKind::Weight && !out.weights.count(n.name);
  };
  // The random values are made for every variable at once: only when one
  // is needed (a network's weights can be most of the memory).
  if (std::none_of(m.graph.nodes().begin(), m.graph.nodes().end(), missing))
    return out;
  const Bindings<float> random = runtime::random_run_bindings(m.graph, seed);
  for (const Node &n : m.graph.nodes())
    if (missing(n))
      out.weights.emplace(n.name, random.at(n.name));
  return out;
}

namespace {

/// Static operator values read by a running operator or a graph output.
std::vector<ValueRef> frontier(const Graph &g) {
  const std::vector<bool> fixed = g.static_nodes();
  const std::vector<bool> live = g.live_nodes();
  std::vector<ValueRef> out;
  auto consider = [&](ValueRef v) {
    if (fixed[v.node] && !g.node(v.node).is_variable() &&
        std::find(out.begin(), out.end(), v) == out.end())
      out.push_back(v);
  };
  for (int32_t id = 0; id < g.num_nodes(); ++id)
    if (live[id] && !fixed[id])
      for (ValueRef v : g.node(id).inputs)
        consider(v);
  for (ValueRef v : g.outputs())
    consider(v);
  return out;
}

/// The static nodes of `g` alone (they only read each other), with
/// `values` as outputs.
Graph static_part(const Graph &g, const std::vector<ValueRef> &values) {
  const std::vector<bool> fixed = g.static_nodes();
  std::vector<int32_t> id_of(g.num_nodes(), -1);
  Graph part;
  for (int32_t id = 0; id < g.num_nodes(); ++id) {
    if (!fixed[id])
      continue;
    const Node &n = g.node(id);
    if (n.is_variable()) {
      id_of[id] = part.weight(n.name, n.types.at(0).shape).node;
      continue;
    }
    std::vector<ValueRef> in;
    for (ValueRef v : n.inputs)
      in.push_back({id_of[v.node], v.output});
    id_of[id] = part.add(n.kind, n.attrs, std::move(in))[0].node;
  }
  for (ValueRef v : values)
    part.mark_output({id_of[v.node], v.output});
  return part;
}

/// `g` with every split's sizes written out. A split at a concat boundary
/// finds its sizes from the boundaries its operand records; folding turns
/// that operand's source into a plain weight, which records none.
Graph with_split_sizes(const Graph &g) {
  return with_attrs(g, [](const Node &n) {
    Attrs attrs = n.attrs;
    if (n.kind == OpKind::Split && !attrs.has(ops::Split::kSizes)) {
      std::vector<int64_t> sizes;
      const int axis = static_cast<int>(attrs.i(ops::Split::kAxis));
      for (const TensorType &t : n.types)
        sizes.push_back(t.shape[axis]);
      attrs.set(ops::Split::kSizes, std::move(sizes));
    }
    return attrs;
  });
}

std::string fresh_name(const Graph &g, int &next) {
  std::string name;
  do
    name = "folded_" + std::to_string(next++);
  while (g.find_variable(name) >= 0);
  return name;
}

} // namespace

Model fold_constants(Model m) {
  const Graph g = with_split_sizes(m.graph);
  const std::vector<ValueRef> values = frontier(g);
  if (values.empty())
    return Model{g, std::move(m.weights), std::move(m.kept_onnx)};
  auto results = evaluate(FloatDomain{}, static_part(g, values), m.weights);

  Graph pattern;
  rewrite::Splice s;
  s.pattern = &pattern;
  Model out;
  out.kept_onnx = m.kept_onnx;
  int next = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    const std::string name = fresh_name(g, next);
    pattern.mark_output(pattern.weight(name));
    s.new_variables.emplace(name, results[i].shape);
    s.replaced.push_back(values[i]);
    out.weights.emplace(name, std::move(results[i]));
  }
  auto folded = rewrite::splice(g, s);
  if (!folded)
    throw Error("constant folding: the folded graph does not type-check");
  out.graph = std::move(*folded);
  for (const Node &n : out.graph.nodes())
    if (n.kind == OpKind::Weight && !out.weights.count(n.name))
      out.weights.emplace(n.name, std::move(m.weights.at(n.name)));
  return out;
}

} // namespace quarry::opt
