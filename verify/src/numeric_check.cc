//===- numeric_check.cc - Two graphs on the same random inputs ------------===//
#include "quarry/verify/numeric_check.h"

#include "quarry/core/float_domain.h"
#include "quarry/core/random.h"
#include "quarry/field/random_field.h"

#include <algorithm>
#include <cmath>

namespace quarry::verify {

namespace {

/// Bindings for the variables of both graphs; values depend only on (seed,
/// name, index), so a variable gets the same tensor from either graph.
template <class S, class Make>
Bindings<S> joint_bindings(const Graph &a, const Graph &b, Make make) {
  Bindings<S> out = make(a);
  for (auto &[name, t] : make(b))
    out.emplace(name, std::move(t));
  return out;
}

} // namespace

NumericComparison compare_numerically(const Graph &a, const Graph &b,
                                      uint64_t seed) {
  if (a.outputs().size() != b.outputs().size())
    throw Error("compare: the graphs have different numbers of outputs");
  NumericComparison r;
  const PrimeField field(seed);
  const auto fin = joint_bindings<Fp>(
      a, b, [&](const Graph &g) { return random_field_bindings(g, seed); });
  const auto fa = evaluate(field, a, fin);
  const auto fb = evaluate(field, b, fin);
  const auto rin = joint_bindings<float>(
      a, b, [&](const Graph &g) { return random_float_bindings(g, seed); });
  const auto ra = evaluate(FloatDomain{}, a, rin);
  const auto rb = evaluate(FloatDomain{}, b, rin);
  for (size_t i = 0; i < fa.size(); ++i) {
    if (fa[i].shape != fb[i].shape) {
      r.shapes_equal = false;
      continue;
    }
    r.field_equal = r.field_equal && fa[i] == fb[i];
    double scale = 0, diff = 0;
    for (int64_t k = 0; k < ra[i].numel(); ++k) {
      scale = std::max(
          {scale, std::fabs(double(ra[i][k])), std::fabs(double(rb[i][k]))});
      diff = std::max(diff, std::fabs(double(ra[i][k]) - double(rb[i][k])));
    }
    r.float_max_diff = std::max(r.float_max_diff, diff);
    r.float_close = r.float_close && diff <= 1e-3 * (1 + scale);
  }
  return r;
}

Graph with_variable_shapes(const Graph &g,
                           const std::map<std::string, Shape> &shapes) {
  Graph out;
  std::vector<std::vector<ValueRef>> values(g.num_nodes());
  for (int32_t id = 0; id < g.num_nodes(); ++id) {
    const Node &n = g.node(id);
    if (n.is_variable()) {
      auto it = shapes.find(n.name);
      std::optional<Shape> s;
      if (it != shapes.end())
        s = it->second;
      values[id] = {n.kind == OpKind::Weight ? out.weight(n.name, s)
                                             : out.input(n.name, s)};
      continue;
    }
    std::vector<ValueRef> in;
    for (ValueRef v : n.inputs)
      in.push_back(values[v.node][v.output]);
    values[id] = out.add(n.kind, n.attrs, std::move(in), n.name);
  }
  for (ValueRef v : g.outputs())
    out.mark_output(values[v.node][v.output]);
  return out;
}

} // namespace quarry::verify
