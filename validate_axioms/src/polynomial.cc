//===- polynomial.cc - Polynomials in normal form -------------------------===//
#include "quarry/validate_axioms/polynomial.h"

#include "quarry/core/hash.h"

#include <algorithm>

namespace quarry::validate_axioms {

namespace {

int degree(Monomial m) {
  int d = 0;
  for (; m; m <<= 16)
    ++d;
  return d;
}

/// Sorts terms by monomial and combines equal ones, dropping zeros.
void normalize(std::vector<Term> &t) {
  std::sort(t.begin(), t.end(), [](const Term &a, const Term &b) {
    return a.monomial < b.monomial;
  });
  size_t out = 0;
  for (size_t i = 0; i < t.size();) {
    Term acc = t[i++];
    while (i < t.size() && t[i].monomial == acc.monomial)
      acc.coeff = acc.coeff + t[i++].coeff;
    if (!acc.coeff.is_zero())
      t[out++] = acc;
  }
  t.resize(out);
}

} // namespace

Monomial multiply(Monomial a, Monomial b) {
  if (!a)
    return b;
  if (!b)
    return a;
  if (degree(a) + degree(b) > kMaxDegree)
    throw Error("symbolic arithmetic: a product of degree above " +
                std::to_string(kMaxDegree));
  // Merge two descending lists of 16-bit symbols.
  Monomial out = 0;
  int shift = 48;
  while (a || b) {
    const uint64_t ta = a >> 48, tb = b >> 48;
    if (ta >= tb) {
      out |= ta << shift;
      a <<= 16;
    } else {
      out |= tb << shift;
      b <<= 16;
    }
    shift -= 16;
  }
  return out;
}

std::vector<uint32_t> symbols_of(Monomial m) {
  std::vector<uint32_t> s;
  for (; m; m <<= 16)
    s.push_back(static_cast<uint32_t>(m >> 48));
  return s;
}

Polynomial Polynomial::constant(const Rational &c) {
  Polynomial p;
  if (!c.is_zero())
    p.terms_.push_back({0, c});
  return p;
}

Polynomial Polynomial::symbol(uint32_t s) {
  if (s == 0 || s > kMaxSymbol)
    throw Error("symbolic arithmetic: more than " + std::to_string(kMaxSymbol) +
                " symbols");
  Polynomial p;
  p.terms_.push_back({symbol_monomial(s), Rational(1)});
  return p;
}

uint32_t Polynomial::as_symbol() const {
  if (terms_.size() != 1 || terms_[0].coeff != Rational(1))
    return 0;
  const Monomial m = terms_[0].monomial;
  return (m & 0xffffffffffffULL) == 0 ? static_cast<uint32_t>(m >> 48) : 0;
}

Polynomial operator+(const Polynomial &a, const Polynomial &b) {
  if (a.terms_.empty())
    return b;
  if (b.terms_.empty())
    return a;
  Polynomial r;
  r.terms_.reserve(a.terms_.size() + b.terms_.size());
  auto i = a.terms_.begin(), j = b.terms_.begin();
  while (i != a.terms_.end() && j != b.terms_.end()) {
    if (i->monomial < j->monomial) {
      r.terms_.push_back(*i++);
    } else if (j->monomial < i->monomial) {
      r.terms_.push_back(*j++);
    } else {
      const Rational c = i->coeff + j->coeff;
      if (!c.is_zero())
        r.terms_.push_back({i->monomial, c});
      ++i;
      ++j;
    }
  }
  r.terms_.insert(r.terms_.end(), i, a.terms_.end());
  r.terms_.insert(r.terms_.end(), j, b.terms_.end());
  return r;
}

Polynomial operator-(const Polynomial &a, const Polynomial &b) {
  return a + b.scaled(Rational(-1));
}

Polynomial operator*(const Polynomial &a, const Polynomial &b) {
  Polynomial r;
  if (a.terms_.empty() || b.terms_.empty())
    return r;
  r.terms_.reserve(a.terms_.size() * b.terms_.size());
  for (const Term &x : a.terms_)
    for (const Term &y : b.terms_)
      r.terms_.push_back({multiply(x.monomial, y.monomial), x.coeff * y.coeff});
  normalize(r.terms_);
  return r;
}

Polynomial Polynomial::scaled(const Rational &c) const {
  Polynomial r;
  if (c.is_zero())
    return r;
  r.terms_ = terms_;
  for (Term &t : r.terms_)
    t.coeff = t.coeff * c;
  return r;
}

uint64_t Polynomial::hash() const {
  uint64_t h = 0x51a7;
  for (const Term &t : terms_)
    h = hash_combine(hash_combine(hash_combine(h, t.monomial),
                                  static_cast<uint64_t>(t.coeff.num())),
                     static_cast<uint64_t>(t.coeff.den()));
  return h;
}

std::string
Polynomial::str(const std::function<std::string(uint32_t)> &name) const {
  if (terms_.empty())
    return "0";
  std::string s;
  for (const Term &t : terms_) {
    const bool negative = t.coeff.num() < 0;
    const Rational mag = negative ? -t.coeff : t.coeff;
    if (s.empty())
      s += negative ? "-" : "";
    else
      s += negative ? " - " : " + ";
    std::string factors;
    for (uint32_t sym : symbols_of(t.monomial))
      factors += (factors.empty() ? "" : "*") + name(sym);
    if (factors.empty())
      s += mag.str();
    else if (mag == Rational(1))
      s += factors;
    else
      s += mag.str() + "*" + factors;
  }
  return s;
}

} // namespace quarry::validate_axioms
