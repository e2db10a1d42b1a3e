//===- injectivity.h - Premises that rule out finite models --*- C++ -*-===//
//
// Two axioms of the shape
//
//   forall ps qs x y. u(qs, g(ps, x, y)) = x
//   forall ps rs x y. v(rs, g(ps, x, y)) = y
//
// (split undoes concat: split0_concat and split1_concat) make g injective in
// its two tensor operands for every choice of parameters: g(ps, x, y) =
// g(ps, x', y') gives x = x' through u and y = y' through v. An injective
// map T x T -> T exists on a finite T only when T has at most one element,
// so every model of such premises with two distinct tensors is infinite,
// and a search for finite countermodels (finite_model.h) cannot succeed.
// Finding the pattern lets the entailment checks skip that search and say
// why no countermodel is shown.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/verify/axiom_file.h"

#include <optional>
#include <string>
#include <vector>

namespace quarry::validate_axioms {

/// The operator made injective and the two premises that do it.
struct InjectiveOperator {
  std::string op;          ///< e.g. "concat"
  std::string left_axiom;  ///< recovers the first operand
  std::string right_axiom; ///< recovers the second operand
};

/// An operator that the premises (indices into file.axioms) make injective
/// in two tensor operands, as above; nullopt when none is found.
std::optional<InjectiveOperator>
injective_operator(const verify::AxiomFile &file,
                   const std::vector<size_t> &premises);

/// "split0_concat and split1_concat make concat injective, so every model
/// with two distinct tensors is infinite".
std::string describe(const InjectiveOperator &op);

} // namespace quarry::validate_axioms
