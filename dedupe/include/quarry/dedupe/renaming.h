//===- renaming.h - Candidates differing only in names --------*- C++ -*-===//
//
// The enumerator names each graph's variables alone: interchangeable
// variables are first used in index order. That keeps renamed copies of a
// graph out, but it also keeps out pairs whose two sides differ only by
// such a renaming. `(x1 + x2) + x3` is enumerated; `x1 + (x2 + x3)` is
// not (x2 comes first), and its renamed copy `x3 + (x1 + x2)` is the same
// graph as the first once ewadd's operands are ordered. So associativity,
// a graph equal to a renaming of itself, is never a candidate.
//
// RenamingSearch finds such pairs:
//   - symmetric_pairs(g): g with each renaming of itself (a permutation of
//     the variables it uses, within each group, commutative operands put
//     back in slot order) that computes the same outputs, checked exactly
//     under both evaluations, yet is another graph, and that the subgraph
//     checks keep. Done for graphs of at most `max_ops` operators: larger
//     such rules follow from the small ones.
//   - renamed_apart(p): for a pair the subgraph checks drop, a renaming of
//     its target that keeps its outputs and leaves the pair without a
//     common subgraph or supergraph.
// Renamings are tried in a fixed order and the first that works is taken,
// so the candidates do not depend on ranks or passes.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/dedupe/candidate.h"

#include <functional>
#include <optional>

namespace quarry {

class RenamingSearch {
public:
  RenamingSearch(const GenConfig &cfg, uint64_t seed, int max_ops = 2);

  /// Whether the subgraph checks (pruning.h) drop `p`.
  bool pruned(const CandidatePair &p) const;

  /// Pairs of `g` (its second-evaluation hash `fp2`) with renamed copies of
  /// itself; none when `g` has more than max_ops operators.
  std::vector<CandidatePair> symmetric_pairs(const GraphRecord &g,
                                             uint64_t fp2) const;

  /// `p` with its target renamed apart from its source, or nullopt.
  std::optional<CandidatePair> renamed_apart(const CandidatePair &p) const;

  int max_ops() const { return max_ops_; }

  /// Renamings tried per graph at most.
  static constexpr int kMaxRenamings = 720;

private:
  /// Calls `f` with every renaming of the variables `r` uses but the
  /// identity, until it returns true; returns whether one did.
  bool any_renaming(const GraphRecord &r,
                    const std::function<bool(const GraphRecord &)> &f) const;
  /// Whether `a` and `b` compute the same outputs under both evaluations.
  bool same_values(const GraphRecord &a, const GraphRecord &b) const;

  const GenConfig &cfg_;
  int max_ops_;
  uint64_t seed1_, seed2_;
  Bindings<Fp> inputs1_, inputs2_;
};

} // namespace quarry
