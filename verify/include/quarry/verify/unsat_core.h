//===- unsat_core.h - Which assumptions a proof needs ----------*- C++ -*-===//
//
// A proof by Z3 checks the negated goal under assumption literals (one per
// axiom, premise or candidate precondition) and reads back the unsat core:
// the literals it used. The core is not minimal, so both the verifier
// (which axioms and preconditions a rule needs) and axiom validation
// (which premises entail a lemma) drop literals one at a time while the
// rest still proves. Each try is bounded by Z3's resource count, the same
// on every machine, so the set found does not depend on the machine.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <z3++.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

namespace quarry::verify {

/// The indices in `lits` of the literals of `solver`'s last unsat core, in
/// the order Z3 gives them.
std::vector<size_t> unsat_core(const z3::solver &solver,
                               const std::vector<z3::expr> &lits);

struct CoreMinimization {
  /// Z3 resources for each try without a literal. A try that is not
  /// decided keeps the literal: a proof that grows hard without it is not
  /// worth the rest of the budget.
  unsigned per_try = 0;
  /// Resources for the whole minimisation; past them it stops, and says
  /// the core it returns may not be minimal.
  uint64_t total = std::numeric_limits<uint64_t>::max();
  /// Only literals this selects are dropped (empty: every literal).
  std::function<bool(size_t)> droppable = {};
  /// After a try that proves, go on from Z3's core of it when that is
  /// smaller than the literals tried (starting over from the first).
  bool take_smaller_core = false;
  /// The clock guard's seconds left, asked before each try (check_within).
  std::function<double()> seconds_left;
};

struct MinimizedCore {
  std::vector<size_t> core;
  bool cut_short = false; ///< `total` ran out
};

/// Deletion-based minimisation of `core` (indices into `lits`): each
/// droppable literal whose absence still leaves the goal proved is left
/// out. `solver` holds the goal; `lits` are its assumption literals.
MinimizedCore minimize_core(z3::solver &solver,
                            const std::vector<z3::expr> &lits,
                            std::vector<size_t> core,
                            const CoreMinimization &how);

} // namespace quarry::verify
