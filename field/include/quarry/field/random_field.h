//===- random_field.h - Uniform random field elements ---------*- C++ -*-===//
#pragma once

#include "quarry/core/random.h"
#include "quarry/field/prime_field.h"

namespace quarry {

/// A uniform element of GF(2^61-1) from 64 random bits.
inline Fp random_fp(uint64_t bits) { return {field61::reduce64(bits >> 3)}; }

/// Random field values for every variable of `g`.
inline Bindings<Fp> random_field_bindings(const Graph &g, uint64_t seed) {
  return random_bindings<Fp>(g, seed, random_fp);
}

} // namespace quarry
