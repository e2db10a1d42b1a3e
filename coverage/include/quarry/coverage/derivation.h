//===- derivation.h - One pack's rules from another's ----------*- C++ -*-===//
//
// A rule follows from a set of rules when they rewrite its source into its
// target. Rule patterns carry no shapes, so the source is given small
// shapes that type-check both sides (verify/refute.h's choices); from it
// a breadth-first search applies every rule at every match, within a budget
// of graphs, until a graph equals the target (by hash, over what the
// outputs use). The steps found are a derivation at those shapes: the
// rules' own shape conditions were checked there.
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
