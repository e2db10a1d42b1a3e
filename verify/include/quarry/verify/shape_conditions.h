//===- shape_conditions.h - What an axiom's shapes clause states -*- C++
//-*-===//
//
// An axiom's `shapes` clause gives each tensor variable and constant a shape
// over dimension variables. Where it names one variable twice, or writes a
// number, it states an equation: `x: [n, c, h, v], const_pool: [c, 1, k.0,
// k.1]` says the constant has as many output channels as x has channels,
// and one input channel. Typing the two sides forces some such equations
// (the operands of ewadd agree); the others are conditions of the axiom,
// and the prover may use it only where they hold. Without them Z3 applied
// const_pool_conv beside a 2-channel x, where the convolution is grouped
// and the equation is false.
//
// Which equations typing forces is found by trying: a tied dimension is
// set apart from the clause's value, one at a time, at a few instances of
// the axiom's domain; if both sides still type-check there, typing does not
// force it, and its equation is a condition. The validation sweep tries
// the same at every case (validate_axioms/sweep.h), so a dimension wrongly
// taken for forced shows as a case the prover would use.
//
// A dimension that the clause computes (`k.0`, `c1 + c2`) states nothing
// here: the prover cannot name a list parameter's element.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/verify/axiom_file.h"
#include "quarry/verify/axiom_instance.h"

#include <cstdint>
#include <string>
#include <vector>

namespace quarry::verify {

/// A dimension the shapes clause ties: a dimension variable written more
/// than once (`var`), or a number (`var` empty, `literal`).
struct TiedPosition {
  ShapePosition pos;
  std::string var;
  int64_t literal = 0;
};

/// Every tied dimension of a's shapes clause, in clause order (none
/// without a domain).
std::vector<TiedPosition> tied_positions(const Axiom &a);

/// The equations of a's shapes clause that typing its two sides does not
/// force and its `where` does not state, in clause order. Throws
/// quarry::Error (at the axiom) when no instance of its domain
/// type-checks: then the clauses contradict each other or the operators.
std::vector<DimCondition> derive_shape_conditions(const AxiomFile &file,
                                                  const Axiom &a);

/// The value of `d` (a variable's or a constant's dimension) in the
/// instance of `values` and `overrides`; nullopt past its rank.
std::optional<int64_t> dim_value(const Axiom &a, const Assignment &values,
                                 const ShapeOverrides &overrides,
                                 const DimRef &d);

/// Whether the instance satisfies a's `where` and its shape conditions:
/// whether the prover may use the axiom there.
bool prover_conditions_hold(const Axiom &a, const Assignment &values,
                            const ShapeOverrides &overrides);

/// "dim(x, 1) = dim(const_pool(k), 0)".
std::string print_condition(const AxiomFile &file, const DimCondition &c);

} // namespace quarry::verify
