//===- transformation.h - What the search may do to a graph ----*- C++ -*-===//
//
// A Transformation is one rule of a rule pack or one hand-written fusion
// (fusions.h). Given a graph it yields every rewritten graph it can make,
// in a fixed order, so the search is the same whatever the thread count.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/optimizer/pattern_match.h"
#include "quarry/optimizer/splice.h"
#include "quarry/rules/rule_pack.h"

#include <functional>
#include <string>
#include <vector>

namespace quarry::opt {

/// A fusion: every rewrite it proposes in the host, in a fixed order.
using FusionFn = std::function<std::vector<OwnedSplice>(const HostInfo &)>;

struct Transformation {
  std::string name;
  /// Exactly one of the two is set.
  const Rule *rule = nullptr;
  FusionFn fusion;

  /// Every graph one application makes from the host (at most `limit`).
  std::vector<Graph> apply(const HostInfo &host, size_t limit) const;

  /// The same graphs one at a time, each with the ordinal that rebuilds it
  /// through apply_at(): for a rule the index of its match, for a fusion
  /// the index among the fusion's proposals.
  void for_each(const HostInfo &host, size_t limit,
                const std::function<void(int ordinal, Graph &&)> &f) const;
  /// Every splice one application proposes (at most `limit`), with its
  /// ordinal; splice() may still refuse one. for_each() gives the graphs
  /// of those it does not refuse, under the same ordinals. A rule's splice
  /// points at the rule's target (no owner); a fusion's owns its pattern.
  /// `keep`, when given, is asked first about each match of a rule; a
  /// match it declines is not proposed, and keeps its ordinal.
  void for_each_splice(
      const HostInfo &host, size_t limit,
      const std::function<void(int ordinal, OwnedSplice &&)> &f,
      const std::function<bool(const MatchSite &)> &keep = {}) const;
  /// The graph for_each() gave with `ordinal` from this host.
  std::optional<Graph> apply_at(const HostInfo &host, int ordinal) const;
};

/// The rule applied at `m`, or nullopt when a precondition fails, the
/// target does not type-check on the matched shapes, its outputs' shapes
/// differ from the source's, or the result would have a cycle.
std::optional<Graph> apply_rule(const HostInfo &host, const Rule &rule,
                                const Match &m);

/// One transformation per rule of `pack`, then the fusions.
std::vector<Transformation> make_transformations(const RulePack &pack,
                                                 bool with_fusions = true);

} // namespace quarry::opt
