//===- instance_check.h - One axiom instance, symbolically ----*- C++ -*-===//
//
// Checks one case of the sweep: instantiate the axiom (verify/
// axiom_instance.h) under an assignment, give every input element its own
// symbol, evaluate both sides with core's evaluate<SymbolicDomain>, and
// compare the normal forms element by element. Where they differ and a max
// term is involved, the normal form is not decisive (max(a, b) may equal b
// for every input), and Z3 decides the element over the reals
// (max_decision.h).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/verify/axiom_instance.h"

#include <string>

namespace quarry::validate_axioms {

enum class CaseOutcome {
  Filtered, ///< outside the domain: the `if` condition is false
  Skipped,  ///< an operator rejects the shapes
  Passed,
  Failed,
};

struct CaseResult {
  CaseOutcome outcome = CaseOutcome::Passed;
  /// For Failed: the shapes, parameters and a differing element; for
  /// Skipped: the operator's reason.
  std::string detail;
};

/// Checks `a` under `values`; `z3_timeout_s` bounds each decision of a max
/// term (an undecided element counts as a failure, saying so).
CaseResult check_case(const verify::AxiomFile &file, const verify::Axiom &a,
                      const verify::Assignment &values, double z3_timeout_s);

} // namespace quarry::validate_axioms
