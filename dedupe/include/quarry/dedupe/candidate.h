//===- candidate.h - Candidate pairs and their exact check ------*- C++ -*-===//
//
// Graphs whose outputs share a fingerprint are candidate equivalents. The
// routing fingerprint is a hash of one exact evaluation; before two graphs
// are paired, both are evaluated again exactly under that evaluation and a
// second, independent one (other random inputs, other pseudo-random scalar
// functions), and their full output tensors are compared. The 128-bit
// fingerprint of a graph is the pair of its output hashes under the two.
// Graphs whose fingerprints agree but whose outputs differ are collisions:
// counted, never paired.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/evaluate.h"
#include "quarry/enumerate/graph_code.h"
#include "quarry/field/prime_field.h"

#include <span>
#include <vector>

namespace quarry {

/// One graph of a candidate pair with its 128-bit fingerprint.
struct CandidateGraph {
  GraphRecord record;
  uint64_t fp2 = 0; ///< output hash under the second evaluation
};

/// source may be rewritten into target (and the reverse); source is the
/// smaller graph of the class (fewer operators, then earlier).
struct CandidatePair {
  CandidateGraph source, target;
};
static_assert(sizeof(CandidatePair) == 2 * 56, "pairs travel as bytes");

struct ClassStats {
  uint64_t graphs = 0;      ///< records examined
  uint64_t reorderings = 0; ///< same graph, independent operators reordered
  uint64_t classes = 0;     ///< exact equivalence classes of two or more
  uint64_t collisions = 0;  ///< fingerprint matches the exact check refuted
  uint64_t candidates = 0;  ///< pairs formed
};

/// A text equal for two records exactly when they are the same graph up to
/// the order of independent operators: the sorted expressions of all
/// operators (there are no duplicate operators to tell apart).
std::string structural_form(const GenConfig &cfg, const GraphRecord &r);

/// Seeds of the two evaluations derived from the run's seed.
uint64_t first_evaluation_seed(uint64_t seed);
uint64_t second_evaluation_seed(uint64_t seed);

/// The outputs of a record's graph, exactly, under the evaluation with
/// `seed` whose inputs are `inputs` (variable_bindings(cfg, seed)).
std::vector<Tensor<Fp>> exact_outputs(const GenConfig &cfg,
                                      const GraphRecord &r, uint64_t seed,
                                      const Bindings<Fp> &inputs);

/// Groups `records` (any order; sorted in place) by fingerprint, confirms
/// each group exactly and pairs each class's smallest graph with the others.
std::vector<CandidatePair>
form_candidate_pairs(const GenConfig &cfg, uint64_t seed,
                     std::vector<GraphRecord> &records, ClassStats &stats);

} // namespace quarry
