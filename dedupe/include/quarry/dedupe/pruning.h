//===- pruning.h - Redundant candidate pairs ---------------------*- C++
//-*-===//
//
// TASO's pruning of candidate pairs:
//   - renaming: two pairs that become equal when variables are renamed
//     (within interchangeable variables: same kind and shape, in either
//     direction) are one rule; renaming_key() is equal exactly for those;
//   - common subgraph: both graphs apply the same operator choice to the
//     same variables (or build the same constant); the rule is an instance
//     of a smaller one with that value as an input;
//   - common supergraph: the last operators of the two graphs are the same
//     choice and differ in at most one operand (an operand produced by an
//     operator counts as different); the rule follows from the smaller one
//     relating the differing operands.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/dedupe/candidate.h"

#include <string>

namespace quarry {

/// A byte string equal for two pairs exactly when one is a renaming of the
/// other (either orientation).
std::string renaming_key(const GenConfig &cfg, const CandidatePair &p);

bool has_common_subgraph(const GenConfig &cfg, const GraphRecord &a,
                         const GraphRecord &b);
bool has_common_supergraph(const GenConfig &cfg, const GraphRecord &a,
                           const GraphRecord &b);

} // namespace quarry
