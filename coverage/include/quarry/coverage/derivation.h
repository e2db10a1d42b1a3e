//===- derivation.h - One pack's rules from another's ----------*- C++ -*-===//
//
// A rule follows from a set of rules when they rewrite its source into its
// target. Rule patterns carry no shapes, so the source is given small
// shapes that type-check both sides (verify/refute.h's choices, the least
// square first); from it a breadth-first search applies every rule at every
// match, within a budget of graphs, until a graph equals the target (by
// equation_hash: what the outputs compute, commutative operands in any
// order). The rule counts as derived only when a derivation is found at
// each of the first `shape_choices` choices that type-check: one found at
// square shapes alone may rest on a transpose that only they allow. The
// derivation reported is the first; the rules' own shape conditions were
// checked where it was found.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/optimizer/transformation.h"

#include <optional>
#include <string>
#include <vector>

namespace quarry::coverage {

struct DeriveOptions {
  size_t max_graphs = 400; ///< distinct graphs explored per shape choice
  int max_steps = 4;       ///< rewrites in a derivation at most
  int shape_choices = 2;   ///< shape choices that type-check, tried in turn
  uint64_t seed = 1;
  /// The rule's variables keep their kinds, so a step's weight variable
  /// matches only weights, as in the optimizer. Off, every variable is a
  /// weight and every step applies as the equation it states.
  bool kinds_as_declared = false;
};

struct Derivation {
  std::vector<std::string> steps; ///< names of the rules applied, in order
  std::string shapes;             ///< "x1:[2,2] ..." where it was found
};

/// A shortest derivation of `rule` by `by` (rule transformations), or
/// nullopt when none was found within the budget.
std::optional<Derivation> derive(const Rule &rule,
                                 const std::vector<opt::Transformation> &by,
                                 const DeriveOptions &opts = {});

} // namespace quarry::coverage
