//===- max_decision.h - Z3 decides elements with max terms ----*- C++ -*-===//
//
// Normal forms treat max as a semilattice operation, which is sound but not
// complete: max(x, x + 1) is x + 1 over the reals. When two normal forms
// differ and a max term is involved, Z3 decides the equation over the reals
// with max as if-then-else, relu as max(p, 0) and sigmoid/tanh as
// uninterpreted real functions.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/validate_axioms/symbol_table.h"

namespace quarry::validate_axioms {

enum class Decision { Equal, Different, Unknown };

/// Whether a = b for every real value of the input elements, within
/// `timeout_s` as Z3 resources (verify::resources_for).
Decision decide_equal(const SymbolTable &symbols, const Polynomial &a,
                      const Polynomial &b, double timeout_s);

} // namespace quarry::validate_axioms
