//===- linear_key.h - The search key's arithmetic (internal) ---*- C++ -*-===//
//
// The search key (search_key.h) is linear in the keys of a graph's nodes,
// so that a rewrite's view can tell the new key from what changes where
// the replaced values were read, without rekeying everything downstream.
// It is computed modulo the prime 2^61 - 1 (field61.h): modulo 2^64 a sum
// over the many paths of a deep graph gathers factors of two until it is
// 0, and every rewrite near the inputs would leave the key as it was.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/graph.h"
#include "quarry/core/hash.h"
#include "quarry/field/field61.h"

#include <cstdint>
#include <vector>

namespace quarry::rewrite::key {

/// A nonzero coefficient from 64 mixed bits.
inline uint64_t coef(uint64_t bits) {
  const uint64_t c = field61::reduce64(bits);
  return c == 0 ? 1 : c;
}

inline uint64_t operand_coef(uint64_t seed, size_t slot) {
  return coef(mix64(seed + 0x9e3779b97f4a7c15ULL * (slot + 1)));
}

inline uint64_t output_coef(size_t j) {
  return coef(mix64(0x6f75747075747321ULL + j));
}

inline uint64_t value_key(uint64_t node_key, int32_t output) {
  return field61::add(node_key,
                      field61::reduce64(mix64(0x76616c7565ULL +
                                              static_cast<uint64_t>(output))));
}

/// A node's key from its node_hash_seed() and its operands, whose nodes'
/// keys `key_of` gives.
template <class KeyOf>
uint64_t node_key(uint64_t seed, const std::vector<ValueRef> &inputs,
                  KeyOf key_of) {
  uint64_t k = field61::reduce64(seed);
  for (size_t s = 0; s < inputs.size(); ++s)
    k = field61::add(
        k, field61::mul(operand_coef(seed, s),
                        value_key(key_of(inputs[s].node), inputs[s].output)));
  return k;
}

/// A graph's key before its variables are XORed in, from its outputs,
/// whose value keys `value_key_of(j)` gives.
template <class ValueKeyOf>
uint64_t outputs_key(size_t outputs, ValueKeyOf value_key_of) {
  uint64_t k = field61::reduce64(graph_hash_seed(outputs));
  for (size_t j = 0; j < outputs; ++j)
    k = field61::add(k, field61::mul(output_coef(j), value_key_of(j)));
  return k;
}

} // namespace quarry::rewrite::key
