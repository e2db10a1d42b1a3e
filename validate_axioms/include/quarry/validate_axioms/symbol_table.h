//===- symbol_table.h - The symbols of one symbolic evaluation -*- C++ -*-===//
//
// Symbols are the elements of the input tensors ("x[0,1]") and function
// terms over normalized polynomials ("relu(p)", "max(p, q, ...)"). A
// function term is interned: the same function of the same normal forms is
// the same symbol, so relu(conv(x)) and conv[act=relu](x) meet in one
// symbol. max is a semilattice operation (commutative, associative,
// idempotent): its arguments are flattened and kept as a sorted set, so max
// terms that are equal by those laws are the same symbol too.
//
// One table per instance; not thread-safe.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/domain.h"
#include "quarry/core/shape.h"
#include "quarry/validate_axioms/polynomial.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace quarry::validate_axioms {

/// What a symbol stands for.
struct SymbolInfo {
  enum class Kind { Element, Apply, Max, Constant };
  Kind kind = Kind::Element;
  // Element: a tensor's element.
  std::string tensor;
  std::vector<int64_t> index;
  // Apply: fn(args[0]); Max: max(args...); Constant: an opaque real.
  UnaryFn fn = UnaryFn::Relu;
  std::vector<Polynomial> args;
  double value = 0;
};

class SymbolTable {
public:
  /// A fresh symbol for every element of a tensor of this shape, in
  /// row-major order.
  std::vector<Polynomial> elements(const std::string &tensor,
                                   const Shape &shape);

  /// fn(p): relu of a constant is computed; anything else is a symbol.
  Polynomial apply(UnaryFn fn, const Polynomial &p);
  /// max(a, b) in the semilattice normal form; constants are compared.
  Polynomial max(const Polynomial &a, const Polynomial &b);
  /// A real constant that is not an integer: one fixed symbol per value.
  Polynomial opaque_constant(double value);

  const SymbolInfo &info(uint32_t symbol) const {
    return symbols_.at(symbol - 1);
  }
  size_t size() const { return symbols_.size(); }
  /// "x[0,1]", "relu(x[0] + y[0])".
  std::string name(uint32_t symbol) const;
  /// Whether `p` mentions a max term, directly or inside a function term.
  bool mentions_max(const Polynomial &p) const;

private:
  uint32_t intern(SymbolInfo info, uint64_t key);
  uint32_t add(SymbolInfo info);

  std::vector<SymbolInfo> symbols_;
  std::unordered_multimap<uint64_t, uint32_t> interned_;
};

} // namespace quarry::validate_axioms
