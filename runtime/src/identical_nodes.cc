//===- identical_nodes.cc - Nodes that compute the same values ------------===//
#include "identical_nodes.h"

#include <unordered_map>

namespace quarry::runtime {

namespace {

ValueRef merged(const std::vector<int32_t> &first, ValueRef v) {
  return {first[v.node], v.output};
}

} // namespace

std::vector<int32_t> first_identical(const Graph &g) {
  std::vector<int32_t> first(g.num_nodes());
  // Candidates by a hash of kind, attributes and (merged) operands.
  std::unordered_map<uint64_t, std::vector<int32_t>> seen;
  for (int32_t id = 0; id < g.num_nodes(); ++id) {
    first[id] = id;
    const Node &n = g.node(id);
    if (n.is_variable() || op_info(n.kind).traits.uninterpreted)
      continue;
    uint64_t h = node_hash_seed(n);
    for (ValueRef v : n.inputs)
      h = hash_operand(h, static_cast<uint64_t>(first[v.node]), v.output);
    std::vector<int32_t> &same_hash = seen[h];
    for (int32_t c : same_hash) {
      const Node &m = g.node(c);
      if (m.kind != n.kind || m.attrs != n.attrs ||
          m.inputs.size() != n.inputs.size())
        continue;
      bool same = true;
      for (size_t i = 0; same && i < n.inputs.size(); ++i)
        same = merged(first, m.inputs[i]) == merged(first, n.inputs[i]);
      if (same) {
        first[id] = c;
        break;
      }
    }
    if (first[id] == id)
      same_hash.push_back(id);
  }
  return first;
}

Graph with_identical_merged(const Graph &g) {
  const std::vector<int32_t> first = first_identical(g);
  bool any = false;
  for (int32_t id = 0; id < g.num_nodes(); ++id)
    any = any || first[id] != id;
  if (!any)
    return g;
  Graph out;
  for (int32_t id = 0; id < g.num_nodes(); ++id) {
    const Node &n = g.node(id);
    if (n.is_variable()) {
      add_variable_like(out, n);
      continue;
    }
    std::vector<ValueRef> in;
    for (ValueRef v : n.inputs)
      in.push_back(merged(first, v));
    out.add(n.kind, n.attrs, std::move(in), n.name);
  }
  for (ValueRef v : g.outputs())
    out.mark_output(merged(first, v));
  return out;
}

} // namespace quarry::runtime
