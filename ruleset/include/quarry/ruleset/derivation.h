//===- derivation.h - One pack's rules from another's ----------*- C++ -*-===//
//
// A rule follows from a set of rules when they rewrite its source into its
// target. Rule patterns carry no shapes, so the source is given small
// shapes that type-check both sides (verify/refute.h's choices, the least
// square first); a breadth-first search from each side applies every rule
// at every match, within a budget of graphs, until a graph reached from
// the source equals one reached from the target (by equation_hash: what
// the outputs compute, commutative operands in any order). From the target
// it applies only the rules read both ways in the set, so that every step
// found can be taken forwards. The rule counts as derived only when a
// derivation is found at each of the first `shape_choices` choices that
// type-check: one found at square shapes alone may rest on a transpose that
// only they allow. The derivation reported is the first; the rules' own shape
// conditions were checked where it was found.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/rewrite/transformation.h"

#include <optional>
#include <string>
#include <vector>

namespace quarry::ruleset {

struct DeriveOptions {
  /// Distinct graphs explored per shape choice, both ends together.
  size_t max_graphs = 1000;
  int max_steps = 8;     ///< rewrites in a derivation at most, both ends
  int shape_choices = 2; ///< shape choices that type-check, tried in turn
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

/// A derivation of `rule` by `by` (rule transformations, a rule read
/// backwards named as reversed_step() names it), or nullopt when none was
/// found within the budget. Short, but not always the shortest: the two
/// ends stop at the first graph they share.
std::optional<Derivation> derive(const Rule &rule,
                                 const std::vector<rewrite::Transformation> &by,
                                 const DeriveOptions &opts = {});

} // namespace quarry::ruleset
