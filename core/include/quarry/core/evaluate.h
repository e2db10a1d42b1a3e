//===- evaluate.h - Run a graph in any Domain -----------------*- C++ -*-===//
//
// The only graph interpreter: float reference evaluation, field
// fingerprints and symbolic evaluation all call evaluate() with their Domain.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/graph.h"

#include <algorithm>
#include <map>
#include <string>

namespace quarry {

/// Values for a graph's variables, by name.
template <class S>
using Bindings = std::map<std::string, Tensor<S>, std::less<>>;

namespace detail {
/// Runs one operator on its operands into outputs of the given types.
template <Domain D>
std::vector<TensorOf<D>> run_node(const D &d, const Node &n,
                                  std::span<const TensorOf<D> *const> in,
                                  const std::vector<TensorType> &out_types) {
  std::vector<TensorOf<D>> out;
  out.reserve(out_types.size());
  for (const auto &t : out_types)
    out.emplace_back(t.shape, d.zero());
  dispatch(n.kind, [&](auto def) {
    using Def = typename decltype(def)::type;
    Def::template evaluate<D>(d, n.attrs, in, std::span<TensorOf<D>>(out));
  });
  return out;
}
} // namespace detail

/// Evaluates every output of `g` with the variables bound by name. Types are
/// inferred from the bound tensors (a variable's declared shape, if any, must
/// match). Only nodes that reach an output run.
template <Domain D>
std::vector<TensorOf<D>> evaluate(const D &d, const Graph &g,
                                  const Bindings<typename D::Scalar> &inputs) {
  const std::vector<bool> live = g.live_nodes();
  std::vector<std::vector<TensorOf<D>>> values(g.num_nodes());
  std::vector<std::vector<TensorType>> types(g.num_nodes());
  // Variables are read where they are bound, not copied: a network's
  // weights can be most of the memory.
  std::vector<const TensorOf<D> *> bound(g.num_nodes(), nullptr);
  const auto value = [&](ValueRef v) -> const TensorOf<D> & {
    return bound[v.node] ? *bound[v.node] : values[v.node][v.output];
  };
  for (int32_t id = 0; id < g.num_nodes(); ++id) {
    if (!live[id])
      continue;
    const Node &n = g.node(id);
    if (n.is_variable()) {
      auto it = inputs.find(n.name);
      if (it == inputs.end())
        throw Error("evaluate: no value bound for " +
                    std::string(op_name(n.kind)) + " '" + n.name + "'");
      if (!n.types.empty() && n.types[0].shape != it->second.shape)
        throw Error("evaluate: '" + n.name + "' declared " +
                    n.types[0].shape.str() + " but bound to " +
                    it->second.shape.str());
      bound[id] = &it->second;
      types[id] = {TensorType(it->second.shape)};
      continue;
    }
    std::vector<TensorType> in_types;
    std::vector<const TensorOf<D> *> in;
    for (ValueRef v : n.inputs) {
      in_types.push_back(types[v.node][v.output]);
      in.push_back(&value(v));
    }
    auto out_types = infer_types(n.kind, n.attrs, in_types);
    if (!out_types)
      throw Error(std::string(op_name(n.kind)) +
                  ": shape unknown; give the constant a shape= attribute");
    values[id] = detail::run_node<D>(d, n, in, *out_types);
    types[id] = std::move(*out_types);
  }
  // Each computed value is moved out at its last mention as an output.
  std::vector<TensorOf<D>> result;
  const std::vector<ValueRef> &outs = g.outputs();
  for (size_t i = 0; i < outs.size(); ++i) {
    const ValueRef v = outs[i];
    const bool again =
        std::find(outs.begin() + static_cast<std::ptrdiff_t>(i) + 1, outs.end(),
                  v) != outs.end();
    if (bound[v.node] || again)
      result.push_back(value(v));
    else
      result.push_back(std::move(values[v.node][v.output]));
  }
  return result;
}

} // namespace quarry
