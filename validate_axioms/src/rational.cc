//===- rational.cc - Exact small rationals with overflow checks -----------===//
#include "quarry/validate_axioms/rational.h"

namespace quarry::validate_axioms {

void Rational::overflow() {
  throw Error("symbolic arithmetic: a coefficient overflows 64 bits");
}

Rational Rational::fraction(int64_t n, int64_t d) {
  if (d == 0)
    throw Error("symbolic arithmetic: division by zero");
  if (d < 0) {
    n = checked_mul(n, -1);
    d = checked_mul(d, -1);
  }
  const int64_t g = std::gcd(n, d);
  return g > 1 ? Rational(n / g, d / g) : Rational(n, d);
}

Rational Rational::slow_add(const Rational &a, const Rational &b) {
  // a/b + c/d over lcm(b, d) keeps intermediates small.
  const int64_t g = std::gcd(a.den_, b.den_);
  const int64_t n = checked_add(checked_mul(a.num_, b.den_ / g),
                                checked_mul(b.num_, a.den_ / g));
  return fraction(n, checked_mul(a.den_, b.den_ / g));
}

Rational Rational::slow_mul(const Rational &a, const Rational &b) {
  // Cross-reduce first so the products cannot overflow needlessly.
  const int64_t g1 = std::gcd(a.num_, b.den_), g2 = std::gcd(b.num_, a.den_);
  const int64_t n = checked_mul(a.num_ / (g1 ? g1 : 1), b.num_ / (g2 ? g2 : 1));
  const int64_t d = checked_mul(a.den_ / (g2 ? g2 : 1), b.den_ / (g1 ? g1 : 1));
  return fraction(n, d);
}

std::string Rational::str() const {
  return den_ == 1 ? std::to_string(num_)
                   : std::to_string(num_) + "/" + std::to_string(den_);
}

} // namespace quarry::validate_axioms
