//===- rule_key.cc - A rule's identity up to names and order --------------===//
#include "quarry/ruleset/rule_key.h"

#include "quarry/core/hash.h"
#include "quarry/core/op_registry.h"

#include <algorithm>
#include <numeric>

namespace quarry::ruleset {

namespace {

/// Canonical variable names for `g` walked from its outputs in `order`.
std::map<std::string, std::string>
canonical_names(const Graph &g, const std::vector<int> &order) {
  std::map<std::string, std::string> names;
  std::vector<bool> seen(g.num_nodes(), false);
  // Iterative depth-first walk, operands in order: rule graphs are small,
  // but a pack read from a file may hold a deep one.
  auto walk = [&](int32_t root) {
    std::vector<std::pair<int32_t, size_t>> stack{{root, 0}};
    seen[root] = true;
    while (!stack.empty()) {
      auto &[id, next] = stack.back();
      const Node &n = g.node(id);
      if (n.is_variable()) {
        names.emplace(n.name, "v" + std::to_string(names.size()));
        stack.pop_back();
      } else if (next < n.inputs.size()) {
        const int32_t child = n.inputs[next++].node;
        if (!seen[child]) {
          seen[child] = true;
          stack.push_back({child, 0});
        }
      } else {
        stack.pop_back();
      }
    }
  };
  for (int i : order)
    walk(g.outputs()[i].node);
  return names;
}

/// rebuilt() with the outputs listed in `order` (all, as they are, when
/// empty).
Graph rebuild(const Graph &g, const std::map<std::string, std::string> &names,
              const std::map<std::string, Shape> &shapes, bool all_weights,
              const std::vector<int> &order) {
  const std::vector<bool> live = g.live_nodes();
  Graph out;
  std::vector<std::vector<ValueRef>> values(g.num_nodes());
  for (int32_t id = 0; id < g.num_nodes(); ++id) {
    if (!live[id])
      continue;
    const Node &n = g.node(id);
    if (n.is_variable()) {
      auto renamed = names.find(n.name);
      const std::string name =
          renamed == names.end() ? n.name : renamed->second;
      std::optional<Shape> shape;
      if (auto s = shapes.find(n.name); s != shapes.end())
        shape = s->second;
      else if (!n.types.empty())
        shape = n.types[0].shape;
      values[id] = {all_weights || n.kind == OpKind::Weight
                        ? out.weight(name, shape)
                        : out.input(name, shape)};
      continue;
    }
    std::vector<ValueRef> in;
    for (ValueRef v : n.inputs)
      in.push_back(values[v.node][v.output]);
    values[id] = out.add(n.kind, n.attrs, std::move(in));
  }
  auto mark = [&](ValueRef v) { out.mark_output(values[v.node][v.output]); };
  if (order.empty())
    for (ValueRef v : g.outputs())
      mark(v);
  for (int i : order)
    mark(g.outputs()[i]);
  return out;
}

} // namespace

uint64_t equation_hash(const Graph &g) {
  std::vector<uint64_t> h(g.num_nodes());
  for (int32_t i = 0; i < g.num_nodes(); ++i) {
    const Node &n = g.node(i);
    uint64_t x = mix64(static_cast<uint64_t>(n.kind) + 1);
    if (n.is_variable()) {
      x = hash_combine(x, hash_bytes(n.name));
      if (!n.types.empty())
        for (int64_t d : n.types[0].shape.dims)
          x = hash_combine(x, static_cast<uint64_t>(d));
    }
    for (size_t a = 0; a < n.attrs.size(); ++a)
      x = hash_combine(x, hash_attr(n.attrs.value(a)));
    std::vector<uint64_t> operands;
    for (ValueRef v : n.inputs)
      operands.push_back(hash_combine(h[v.node], v.output));
    if (op_info(n.kind).traits.commutative && operands.size() == 2)
      std::sort(operands.begin(), operands.end());
    for (uint64_t o : operands)
      x = hash_combine(x, o);
    h[i] = x;
  }
  uint64_t x = mix64(g.outputs().size());
  for (ValueRef v : g.outputs())
    x = hash_combine(x, hash_combine(h[v.node], v.output));
  return x;
}

Graph rebuilt(const Graph &g, const std::map<std::string, std::string> &names,
              const std::map<std::string, Shape> &shapes, bool all_weights) {
  return rebuild(g, names, shapes, all_weights, {});
}

RuleKey rule_key(const Rule &rule) {
  const int outputs = static_cast<int>(rule.source.outputs().size());
  std::vector<int> order(outputs);
  std::iota(order.begin(), order.end(), 0);
  std::optional<RuleKey> best;
  do {
    const auto names = canonical_names(rule.source, order);
    RuleKey k{equation_hash(rebuild(rule.source, names, {}, true, order)),
              equation_hash(rebuild(rule.target, names, {}, true, order))};
    std::vector<std::string> conditions;
    for (const DimEquality &d : rule.preconditions) {
      auto name = [&](const std::string &v) {
        auto it = names.find(v);
        return it == names.end() ? v : it->second;
      };
      std::string a = name(d.var) + ":" + std::to_string(d.dim);
      std::string b = name(d.other_var) + ":" + std::to_string(d.other_dim);
      conditions.push_back(std::min(a, b) + "=" + std::max(a, b));
    }
    std::sort(conditions.begin(), conditions.end());
    for (const std::string &c : conditions)
      k.source = hash_combine(k.source, hash_bytes(c));
    if (!best || k < *best)
      best = k;
  } while (outputs <= 5 && std::next_permutation(order.begin(), order.end()));
  return *best;
}

} // namespace quarry::ruleset
