//===- renaming.h - Renamed copies of small graphs ------------*- C++ -*-===//
//
// The enumerator names each graph's variables alone: interchangeable
// variables are first used in index order. That keeps renamed copies of a
// graph out, but also pairs whose two sides differ by such a renaming.
// `x1 + (x2 + x3)` is never enumerated (x2 comes first); its renamed copy
// `x3 + (x1 + x2)` is the very graph `(x1 + x2) + x3` once ewadd's operands
// are ordered, so associativity has no class of two. Likewise
// `x1 * x3 + x2 * x3` is enumerated only as `x1 * x2 + x3 * x2`, which
// computes another function than `(x1 + x2) * x3`: distributivity over a
// shared right operand is never a candidate either.
//
// So every graph of at most `max_ops` operators is also routed, before the
// classes are formed, as its renamed copies: each permutation of the
// variables it uses within their groups (commutative operands put back in
// slot order) that gives another graph, with the fingerprint, output order
// and a key of its own as if it had been enumerated. A copy then meets the
// graphs it equals in their class and is paired like any other member;
// larger such rules follow from the small ones.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/dedupe/candidate.h"

#include <vector>

namespace quarry {

class RenamedCopies {
public:
  RenamedCopies(const GenConfig &cfg, uint64_t seed, int max_ops);

  /// The renamed copies of `r`, in a fixed order; none when `r` has more
  /// than max_ops operators.
  std::vector<GraphRecord> of(const GraphRecord &r) const;

  /// `r`'s outputs put in fingerprint order and its routing fingerprint,
  /// computed as the enumerator computes them.
  void fingerprint(GraphRecord &r) const;

  /// Renamings tried per graph at most.
  static constexpr int kMaxRenamings = 720;

private:
  const GenConfig &cfg_;
  int max_ops_;
  uint64_t seed1_;
  Bindings<Fp> inputs1_;
};

} // namespace quarry
