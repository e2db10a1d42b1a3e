//===- polynomial.h - Polynomials in normal form --------------*- C++ -*-===//
//
// The values of the symbolic sweep: polynomials with rational coefficients
// over symbols (numbered 1..65535: the elements of the input tensors, and
// function terms such as relu(p), see symbol_table.h). A polynomial is kept
// in normal form: terms sorted by monomial, monomials combined, no zero
// coefficients. Two polynomials are equal as polynomials exactly when their
// normal forms are equal, so comparing the two sides of an axiom element by
// element is a vector comparison.
//
// A monomial packs up to four symbols (with repetition) into one 64-bit
// word, 16 bits each, sorted, so multiplying and comparing monomials is
// integer work. The sweep's axioms have degree at most 3; a product of
// higher degree throws quarry::Error instead of being truncated.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/validate_axioms/rational.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace quarry::validate_axioms {

/// A product of up to four symbols; 0 is the empty product (the constant 1).
using Monomial = uint64_t;

constexpr int kMaxDegree = 4;
constexpr uint32_t kMaxSymbol = 0xffff;

/// The monomial of one symbol (1..kMaxSymbol).
constexpr Monomial symbol_monomial(uint32_t symbol) {
  return static_cast<Monomial>(symbol) << 48;
}

/// The product of two monomials; throws when the degree exceeds kMaxDegree.
Monomial multiply(Monomial a, Monomial b);

/// The symbols of a monomial, largest first.
std::vector<uint32_t> symbols_of(Monomial m);

struct Term {
  Monomial monomial = 0;
  Rational coeff;
  friend bool operator==(const Term &, const Term &) = default;
};

class Polynomial {
public:
  Polynomial() = default;
  static Polynomial constant(const Rational &c);
  static Polynomial symbol(uint32_t s);

  const std::vector<Term> &terms() const { return terms_; }
  bool is_zero() const { return terms_.empty(); }
  /// The value when the polynomial is a constant.
  bool is_constant() const {
    return terms_.empty() || (terms_.size() == 1 && terms_[0].monomial == 0);
  }
  Rational constant_value() const {
    return terms_.empty() ? Rational(0) : terms_[0].coeff;
  }
  /// The symbol when the polynomial is exactly one symbol, else 0.
  uint32_t as_symbol() const;

  friend Polynomial operator+(const Polynomial &a, const Polynomial &b);
  friend Polynomial operator-(const Polynomial &a, const Polynomial &b);
  friend Polynomial operator*(const Polynomial &a, const Polynomial &b);
  Polynomial scaled(const Rational &c) const;

  friend bool operator==(const Polynomial &, const Polynomial &) = default;
  uint64_t hash() const;

  /// "2*x[0,1]*w[0] - 1/9*relu(...)" with symbols named by `name`.
  std::string str(const std::function<std::string(uint32_t)> &name) const;

private:
  std::vector<Term> terms_; ///< sorted by monomial, nonzero coefficients
};

} // namespace quarry::validate_axioms
