//===- prime_field.h - The exact Domain for fingerprints ------*- C++ -*-===//
//
// PrimeField evaluates operators exactly in GF(2^61-1). Linear algebra
// (add, mul, avg-pool division by a field inverse) is exact, so two graphs
// that compute the same polynomial agree on every input. Operations with no
// field counterpart are fixed pseudo-random functions keyed by the domain's
// seed: relu, sigmoid, tanh, invsqrt; max compares canonical
// representatives (commutative and associative, as max pooling needs).
// Different seeds give independent evaluations.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/domain.h"
#include "quarry/field/field61.h"

#include <bit>
#include <cmath>

namespace quarry {

/// One element of GF(2^61-1), canonical in [0, p).
struct Fp {
  uint64_t v = 0;
  friend bool operator==(Fp, Fp) = default;
};

class PrimeField {
public:
  using Scalar = Fp;

  explicit PrimeField(uint64_t seed = 0) : seed_(seed) {}
  uint64_t seed() const { return seed_; }

  Fp zero() const { return {0}; }
  Fp one() const { return {1}; }
  Fp from_int(int64_t n) const { return {field61::from_int(n)}; }
  /// Integers map exactly; other reals to a fixed element per value.
  Fp constant(double r) const {
    if (r == std::trunc(r) && std::fabs(r) < 9.0e18)
      return from_int(static_cast<int64_t>(r));
    return {field61::scramble(std::bit_cast<uint64_t>(r), 0x5eed)};
  }
  Fp add(Fp a, Fp b) const { return {field61::add(a.v, b.v)}; }
  Fp sub(Fp a, Fp b) const { return {field61::sub(a.v, b.v)}; }
  Fp mul(Fp a, Fp b) const { return {field61::mul(a.v, b.v)}; }
  Fp div_int(Fp a, int64_t n) const {
    return {field61::mul(a.v, field61::inverse(field61::from_int(n)))};
  }
  Fp max(Fp a, Fp b) const { return a.v >= b.v ? a : b; }
  Fp unary(UnaryFn f, Fp a) const {
    return {field61::scramble(a.v, seed_ * 8 + static_cast<uint64_t>(f) + 1)};
  }

private:
  uint64_t seed_;
};

static_assert(Domain<PrimeField>);

} // namespace quarry
