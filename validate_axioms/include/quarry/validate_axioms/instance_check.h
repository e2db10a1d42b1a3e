//===- instance_check.h - One axiom instance, symbolically ----*- C++ -*-===//
//
// Checks one case of the sweep: instantiate the axiom (verify/
// axiom_instance.h) in a case (case_space.h), give every input element its own
// symbol, evaluate both sides with core's evaluate<SymbolicDomain>, and
// compare the normal forms element by element. Where they differ and a max
// term is involved, the normal form is not decisive (max(a, b) may equal b
// for every input), and Z3 decides the element over the reals
// (max_decision.h).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/validate_axioms/case_space.h"

#include <string>

namespace quarry::validate_axioms {

enum class CaseOutcome {
  /// Not a case: outside the axiom's `where` and shape conditions, or an
  /// untied dimension at its tied value or where typing forces the tie
  Filtered,
  Skipped, ///< an operator rejects the shapes
  Passed,
  Failed,
};

struct CaseResult {
  CaseOutcome outcome = CaseOutcome::Passed;
  /// For Failed: the shapes, parameters and a differing element; for
  /// Skipped: the operator's reason.
  std::string detail;
};

/// Checks `a` in case `c` (case_space.h); `z3_timeout_s` bounds each
/// decision of a max term (an undecided element counts as a failure,
/// saying so).
CaseResult check_case(const verify::AxiomFile &file, const verify::Axiom &a,
                      const Case &c, double z3_timeout_s);

} // namespace quarry::validate_axioms
