//===- transformation.h - What the search may do to a graph ----*- C++ -*-===//
//
// A Transformation is one rule of a rule pack, read one way, one
// hand-written fusion (fusions.h), or the choice of how operators run
// (implementations.h). Given a graph it yields every rewritten
// graph it can make, in a fixed order, so the search is the same whatever
// the thread count.
//
// A proved rule states an equation, and the generator keeps one
// orientation of each (the smallest graph of a class on the left, every
// other member on the right), so by default a rule is applied both ways:
// from source to target, and as "NAME reversed" from target to source
// where the target binds all the source's variables (reversible()). Read
// forward only, a network holding a class's larger member could never be
// rewritten into its smallest.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/rewrite/implementations.h"
#include "quarry/rewrite/pattern_match.h"
#include "quarry/rewrite/splice.h"
#include "quarry/rulepack/rule_pack.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace quarry::rewrite {

/// A fusion: every rewrite it proposes in the host, in a fixed order.
using FusionFn = std::function<std::vector<OwnedSplice>(const HostInfo &)>;

struct Transformation {
  std::string name;
  /// Exactly one of the two is set.
  const Rule *rule = nullptr;
  FusionFn fusion;
  /// What `rule` points at when the transformation made it (a pack's rule
  /// read backwards); empty when it points into a pack.
  std::shared_ptr<const Rule> own_rule = {};
  /// The operator kinds the rule's source needs: a host lacking one is not
  /// matched at all, which spares a derivation search, whose small graphs
  /// lack most, a pass over every pattern (empty: always matched).
  std::bitset<kNumOps> needs = {};

  /// The transformation applying `rule` forward (`own`: its owner, when the
  /// caller does not keep it).
  static Transformation of_rule(const Rule &rule,
                                std::shared_ptr<const Rule> own = {});

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

struct TransformationOptions {
  bool fusions = true;  ///< the hand-written fusions, after the rules
  bool reversed = true; ///< each reversible rule also from target to source
  /// When set, the ways a backend offers to run a node, as one more
  /// transformation after the fusions (implementations.h).
  ImplementationsFn implementations = {};
};

/// Each rule of `pack` forward, followed by the same rule reversed when
/// asked and reversible(); then the fusions; then the implementation
/// choices when given. `pack` must outlive them.
std::vector<Transformation>
make_transformations(const RulePack &pack,
                     const TransformationOptions &opts = {});

} // namespace quarry::rewrite
