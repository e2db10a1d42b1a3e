//===- symbolic_domain.h - Exact symbolic evaluation ----------*- C++ -*-===//
//
// The Domain (core/domain.h) of the symbolic sweep: scalars are polynomials
// in normal form (polynomial.h) over the input elements, with relu,
// sigmoid, tanh and max as interned function terms (symbol_table.h). Running
// core's evaluate<SymbolicDomain> on both sides of an axiom instance gives,
// element by element, normal forms that are equal exactly when the two sides
// are equal as polynomials in the inputs, for every choice of the
// nonlinear functions.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/domain.h"
#include "quarry/validate_axioms/symbol_table.h"

#include <cmath>

namespace quarry::validate_axioms {

class SymbolicDomain {
public:
  using Scalar = Polynomial;

  explicit SymbolicDomain(SymbolTable &symbols) : symbols_(&symbols) {}

  Scalar zero() const { return {}; }
  Scalar one() const { return Polynomial::constant(Rational(1)); }
  Scalar from_int(int64_t n) const { return Polynomial::constant(Rational(n)); }
  Scalar constant(double r) const {
    if (std::nearbyint(r) == r && std::fabs(r) < 1e15)
      return from_int(static_cast<int64_t>(r));
    return symbols_->opaque_constant(r);
  }
  Scalar add(const Scalar &a, const Scalar &b) const { return a + b; }
  Scalar sub(const Scalar &a, const Scalar &b) const { return a - b; }
  Scalar mul(const Scalar &a, const Scalar &b) const { return a * b; }
  Scalar div_int(const Scalar &a, int64_t n) const {
    return a.scaled(Rational::fraction(1, n));
  }
  Scalar max(const Scalar &a, const Scalar &b) const {
    return symbols_->max(a, b);
  }
  Scalar unary(UnaryFn f, const Scalar &a) const {
    return symbols_->apply(f, a);
  }

  SymbolTable &symbols() const { return *symbols_; }

private:
  SymbolTable *symbols_;
};

static_assert(Domain<SymbolicDomain>);

} // namespace quarry::validate_axioms
