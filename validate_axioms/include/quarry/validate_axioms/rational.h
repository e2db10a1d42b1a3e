//===- rational.h - Exact small rationals with overflow checks -*- C++ -*-===//
//
// Coefficients of the symbolic sweep's polynomials. On the sweep's tensors
// (dimensions up to a handful) every coefficient is a small integer or such
// an integer over a pooling window's size, so a reduced fraction of two
// 64-bit integers suffices; every operation checks for overflow and throws
// quarry::Error rather than ever returning a wrong value.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/error.h"

#include <cstdint>
#include <numeric>
#include <string>

namespace quarry::validate_axioms {

class Rational {
public:
  constexpr Rational() = default;
  constexpr Rational(int64_t n) : num_(n) {} // NOLINT: integers convert
  /// n / d for d != 0, reduced.
  static Rational fraction(int64_t n, int64_t d);

  int64_t num() const { return num_; }
  int64_t den() const { return den_; }
  bool is_zero() const { return num_ == 0; }

  friend Rational operator+(const Rational &a, const Rational &b) {
    if (a.den_ == 1 && b.den_ == 1)
      return Rational(checked_add(a.num_, b.num_));
    return slow_add(a, b);
  }
  friend Rational operator-(const Rational &a) {
    return Rational(checked_mul(a.num_, -1), a.den_);
  }
  friend Rational operator*(const Rational &a, const Rational &b) {
    if (a.den_ == 1 && b.den_ == 1)
      return Rational(checked_mul(a.num_, b.num_));
    return slow_mul(a, b);
  }
  friend bool operator==(const Rational &, const Rational &) = default;

  /// "3", "-1/9".
  std::string str() const;

private:
  constexpr Rational(int64_t n, int64_t d) : num_(n), den_(d) {}
  static int64_t checked_add(int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
      overflow();
    return r;
  }
  static int64_t checked_mul(int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r))
      overflow();
    return r;
  }
  [[noreturn]] static void overflow();
  static Rational slow_add(const Rational &a, const Rational &b);
  static Rational slow_mul(const Rational &a, const Rational &b);

  int64_t num_ = 0;
  int64_t den_ = 1; ///< always positive; gcd(num, den) = 1
};

} // namespace quarry::validate_axioms
