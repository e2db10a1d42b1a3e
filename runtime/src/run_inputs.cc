//===- run_inputs.cc - Random bindings, batch change, error measure -------===//
#include "quarry/runtime/run_inputs.h"

#include "quarry/core/random.h"

#include <algorithm>
#include <cmath>

namespace quarry::runtime {

namespace {

/// random_run_bindings' values for the variables `wanted` picks.
template <class Wanted>
Bindings<float> run_values(const Graph &g, uint64_t seed, Wanted wanted) {
  Bindings<float> b = random_bindings<float>(g, seed, random_float, wanted);
  for (const Node &n : g.nodes()) {
    if (n.kind != OpKind::BatchNorm)
      continue;
    const Node &var = g.node(n.inputs[4].node);
    auto it = b.find(var.name);
    if (!var.is_variable() || it == b.end())
      continue;
    for (float &v : it->second.data)
      v = std::fabs(v) + 0.5f;
  }
  return b;
}

} // namespace

Bindings<float> random_run_bindings(const Graph &g, uint64_t seed) {
  return run_values(g, seed, [](const Node &) { return true; });
}

Bindings<float> random_run_inputs(const Graph &g, uint64_t seed) {
  return run_values(g, seed,
                    [](const Node &n) { return n.kind == OpKind::Input; });
}

Graph with_batch(const Graph &g, int64_t batch) {
  if (batch < 1)
    throw Error("batch must be positive, got " + std::to_string(batch));
  Graph out;
  std::vector<std::vector<ValueRef>> map(g.num_nodes());
  for (int32_t id = 0; id < g.num_nodes(); ++id) {
    const Node &n = g.node(id);
    if (n.is_variable()) {
      std::optional<Shape> shape;
      if (!n.types.empty())
        shape = n.types[0].shape;
      if (n.kind == OpKind::Input && shape && shape->rank() > 0)
        (*shape)[0] = batch;
      map[id] = {n.kind == OpKind::Input ? out.input(n.name, shape)
                                         : out.weight(n.name, shape)};
      continue;
    }
    std::vector<ValueRef> in;
    for (ValueRef v : n.inputs)
      in.push_back(map[v.node][v.output]);
    map[id] = out.add(n.kind, n.attrs, in, n.name);
  }
  for (ValueRef v : g.outputs())
    out.mark_output(map[v.node][v.output]);
  return out;
}

double max_relative_error(const std::vector<Tensor<float>> &a,
                          const std::vector<Tensor<float>> &ref) {
  if (a.size() != ref.size())
    throw Error("compare: " + std::to_string(a.size()) + " outputs against " +
                std::to_string(ref.size()));
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].shape != ref[i].shape)
      throw Error("compare: output " + std::to_string(i) + " is " +
                  a[i].shape.str() + ", reference " + ref[i].shape.str());
    double diff = 0, scale = 0;
    for (int64_t k = 0; k < a[i].numel(); ++k) {
      const double d = std::fabs(double(a[i][k]) - double(ref[i][k]));
      diff = std::isnan(d) ? INFINITY : std::max(diff, d);
      scale = std::max(scale, std::fabs(double(ref[i][k])));
    }
    worst = std::max(worst, diff / std::max(scale, 1e-30));
  }
  return worst;
}

} // namespace quarry::runtime
