//===- weights.h - Values of a graph's weights ------------------*- C++ -*-===//
//
// A Graph names its weights; their values live beside it in a WeightTable
// (name -> tensor). Model builders fill one with seeded random values, the
// ONNX importer with the model's initializers; files keep it next to the
// graph (models/: `<graph>.qg` plus `<graph>.weights.pb`). Variables with no
// entry are bound to seeded random values, as everywhere else in quarry.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/random.h"

namespace quarry {

using WeightTable = Bindings<float>;

/// Bindings for every variable of `g`: the table's value where it has one,
/// otherwise random floats in [-1, 1) from `seed` (random_float_bindings).
inline Bindings<float> bind_variables(const Graph &g, const WeightTable &table,
                                      uint64_t seed) {
  Bindings<float> b;
  for (const Node &n : g.nodes()) {
    if (!n.is_variable())
      continue;
    auto it = table.find(n.name);
    if (it == table.end()) {
      if (n.types.empty())
        throw Error("weights: variable '" + n.name + "' has no shape");
      Tensor<float> t(n.types[0].shape, 0.0f);
      for (int64_t i = 0; i < t.numel(); ++i)
        t[i] = random_float(random_bits(seed, n.name, i));
      b.emplace(n.name, std::move(t));
      continue;
    }
    if (!n.types.empty() && it->second.shape != n.types[0].shape)
      throw Error("weights: '" + n.name + "' has shape " +
                  n.types[0].shape.str() + " in the graph but " +
                  it->second.shape.str() + " in the weight table");
    b.emplace(n.name, it->second);
  }
  return b;
}

} // namespace quarry
