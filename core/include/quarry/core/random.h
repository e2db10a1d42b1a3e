//===- random.h - Seeded random tensors for any Domain --------*- C++ -*-===//
//
// Reproducible everywhere: values come from mix64 of (seed, name, index),
// not from <random> distributions, whose output differs between standard
// libraries.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/evaluate.h"
#include "quarry/core/hash.h"

namespace quarry {

/// 64 random bits for element `index` of the tensor bound to `name`.
inline uint64_t random_bits(uint64_t seed, std::string_view name,
                            int64_t index) {
  return mix64(hash_combine(hash_combine(seed, hash_bytes(name)),
                            static_cast<uint64_t>(index)));
}

/// Binds every variable of `g` (which must have shapes) for which
/// `wanted(node)` holds to a tensor whose element i is
/// make(random_bits(seed, name, i)).
template <class S, class Make, class Wanted>
Bindings<S> random_bindings(const Graph &g, uint64_t seed, Make make,
                            Wanted wanted) {
  Bindings<S> b;
  for (const Node &n : g.nodes()) {
    if (!n.is_variable() || !wanted(n))
      continue;
    if (n.types.empty())
      throw Error("random inputs: variable '" + n.name + "' has no shape");
    Tensor<S> t(n.types[0].shape, S{});
    for (int64_t i = 0; i < t.numel(); ++i)
      t[i] = make(random_bits(seed, n.name, i));
    b.emplace(n.name, std::move(t));
  }
  return b;
}

/// Binds every variable of `g`.
template <class S, class Make>
Bindings<S> random_bindings(const Graph &g, uint64_t seed, Make make) {
  return random_bindings<S>(g, seed, make, [](const Node &) { return true; });
}

/// Uniform floats in [-1, 1) with 24 bits of precision.
inline float random_float(uint64_t bits) {
  return static_cast<float>(bits >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

/// Random floats in [-1, 1) for every variable of `g`.
inline Bindings<float> random_float_bindings(const Graph &g, uint64_t seed) {
  return random_bindings<float>(g, seed, random_float);
}

} // namespace quarry
