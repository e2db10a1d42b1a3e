//===- rule_key.h - A rule's identity up to names and order ----*- C++ -*-===//
//
// Two packs write the same rule with other variable names (TASO's x0 where
// quarry has x1) and with its outputs in another order. The key names the
// variables in the order a depth-first walk from the source's outputs
// meets them, lists the outputs in every order (both sides permuted
// together) and keeps the least: equal keys are the same rule. A
// variable's kind does not count: TASO states its rules over inputs, where
// quarry's generator has weights (which match only values computed from
// weights); the equation is the same.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/rulepack/rule_pack.h"

#include <compare>
#include <cstdint>

namespace quarry::ruleset {

struct RuleKey {
  uint64_t source = 0, target = 0;
  friend auto operator<=>(const RuleKey &, const RuleKey &) = default;
};

/// Equal for rules that differ only in their variables' names and kinds and
/// in the order of their outputs; preconditions count (renamed alike).
/// Rules with more than 5 outputs keep their order.
RuleKey rule_key(const Rule &rule);

/// A hash of what `g`'s outputs compute, equal for graphs that differ only
/// in the order of a commutative operator's operands, in node order or in
/// variables no output uses (Graph::hash counts all three). Variables hash
/// by name and shape.
uint64_t equation_hash(const Graph &g);

/// `g` rebuilt with its variables renamed by `names` (absent: kept), only
/// what its outputs use, shapes as given for variables in `shapes`, and
/// every variable a weight when `all_weights`.
Graph rebuilt(const Graph &g, const std::map<std::string, std::string> &names,
              const std::map<std::string, Shape> &shapes = {},
              bool all_weights = false);

} // namespace quarry::ruleset
