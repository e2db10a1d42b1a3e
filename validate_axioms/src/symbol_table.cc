//===- symbol_table.cc - The symbols of one symbolic evaluation -----------===//
#include "quarry/validate_axioms/symbol_table.h"

#include "quarry/core/hash.h"

#include <algorithm>
#include <bit>

namespace quarry::validate_axioms {

namespace {

bool same_term(const SymbolInfo &a, const SymbolInfo &b) {
  return a.kind == b.kind && a.fn == b.fn && a.args == b.args &&
         std::bit_cast<uint64_t>(a.value) == std::bit_cast<uint64_t>(b.value);
}

uint64_t args_key(uint64_t seed, const std::vector<Polynomial> &args) {
  for (const Polynomial &p : args)
    seed = hash_combine(seed, p.hash());
  return seed;
}

/// A total order on normal forms, for keeping max's arguments as a set.
bool poly_less(const Polynomial &a, const Polynomial &b) {
  return std::lexicographical_compare(a.terms().begin(), a.terms().end(),
                                      b.terms().begin(), b.terms().end(),
                                      [](const Term &x, const Term &y) {
                                        if (x.monomial != y.monomial)
                                          return x.monomial < y.monomial;
                                        if (x.coeff.num() != y.coeff.num())
                                          return x.coeff.num() < y.coeff.num();
                                        return x.coeff.den() < y.coeff.den();
                                      });
}

} // namespace

uint32_t SymbolTable::add(SymbolInfo info) {
  if (symbols_.size() >= kMaxSymbol)
    throw Error("symbolic arithmetic: more than " + std::to_string(kMaxSymbol) +
                " symbols in one instance");
  symbols_.push_back(std::move(info));
  return static_cast<uint32_t>(symbols_.size());
}

uint32_t SymbolTable::intern(SymbolInfo info, uint64_t key) {
  auto [lo, hi] = interned_.equal_range(key);
  for (auto it = lo; it != hi; ++it)
    if (same_term(symbols_[it->second - 1], info))
      return it->second;
  const uint32_t s = add(std::move(info));
  interned_.emplace(key, s);
  return s;
}

std::vector<Polynomial> SymbolTable::elements(const std::string &tensor,
                                              const Shape &shape) {
  std::vector<Polynomial> out;
  const int64_t n = shape.numel();
  out.reserve(n);
  for (int64_t i = 0; i < n; ++i) {
    SymbolInfo info;
    info.tensor = tensor;
    int64_t rest = i;
    info.index.assign(shape.rank(), 0);
    for (int d = shape.rank() - 1; d >= 0; --d) {
      info.index[d] = rest % shape[d];
      rest /= shape[d];
    }
    out.push_back(Polynomial::symbol(add(std::move(info))));
  }
  return out;
}

Polynomial SymbolTable::apply(UnaryFn fn, const Polynomial &p) {
  if (fn == UnaryFn::Relu && p.is_constant()) {
    const Rational c = p.constant_value();
    return c.num() > 0 ? p : Polynomial();
  }
  SymbolInfo info;
  info.kind = SymbolInfo::Kind::Apply;
  info.fn = fn;
  info.args = {p};
  const uint64_t key = args_key(static_cast<uint64_t>(fn) + 1, info.args);
  return Polynomial::symbol(intern(std::move(info), key));
}

Polynomial SymbolTable::max(const Polynomial &a, const Polynomial &b) {
  if (a == b)
    return a;
  if (a.is_constant() && b.is_constant()) {
    const Rational d = a.constant_value() + -b.constant_value();
    return d.num() >= 0 ? a : b;
  }
  std::vector<Polynomial> args;
  for (const Polynomial *p : {&a, &b}) {
    const uint32_t s = p->as_symbol();
    if (s && info(s).kind == SymbolInfo::Kind::Max)
      args.insert(args.end(), info(s).args.begin(), info(s).args.end());
    else
      args.push_back(*p);
  }
  std::sort(args.begin(), args.end(), poly_less);
  args.erase(std::unique(args.begin(), args.end()), args.end());
  if (args.size() == 1)
    return args[0];
  SymbolInfo info;
  info.kind = SymbolInfo::Kind::Max;
  info.args = std::move(args);
  const uint64_t key = args_key(0x3a7, info.args);
  return Polynomial::symbol(intern(std::move(info), key));
}

Polynomial SymbolTable::opaque_constant(double value) {
  SymbolInfo info;
  info.kind = SymbolInfo::Kind::Constant;
  info.value = value;
  return Polynomial::symbol(intern(
      std::move(info), hash_combine(0xc0, std::bit_cast<uint64_t>(value))));
}

std::string SymbolTable::name(uint32_t symbol) const {
  const SymbolInfo &s = info(symbol);
  auto name_of = [this](uint32_t x) { return name(x); };
  switch (s.kind) {
  case SymbolInfo::Kind::Element: {
    std::string n = s.tensor + "[";
    for (size_t i = 0; i < s.index.size(); ++i)
      n += (i ? "," : "") + std::to_string(s.index[i]);
    return n + "]";
  }
  case SymbolInfo::Kind::Apply: {
    const char *fn = s.fn == UnaryFn::Relu      ? "relu"
                     : s.fn == UnaryFn::Sigmoid ? "sigmoid"
                     : s.fn == UnaryFn::Tanh    ? "tanh"
                                                : "invsqrt";
    return std::string(fn) + "(" + s.args[0].str(name_of) + ")";
  }
  case SymbolInfo::Kind::Max: {
    std::string n = "max(";
    for (size_t i = 0; i < s.args.size(); ++i)
      n += (i ? ", " : "") + s.args[i].str(name_of);
    return n + ")";
  }
  case SymbolInfo::Kind::Constant:
    return "const(" + std::to_string(s.value) + ")";
  }
  return "?";
}

bool SymbolTable::mentions_max(const Polynomial &p) const {
  for (const Term &t : p.terms())
    for (uint32_t s : symbols_of(t.monomial)) {
      const SymbolInfo &i = info(s);
      if (i.kind == SymbolInfo::Kind::Max)
        return true;
      if (i.kind == SymbolInfo::Kind::Apply && mentions_max(i.args[0]))
        return true;
    }
  return false;
}

} // namespace quarry::validate_axioms
