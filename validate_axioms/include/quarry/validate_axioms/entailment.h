//===- entailment.h - Lemmas, redundancy and consistency ------*- C++ -*-===//
//
// Three questions about an axiom file, each asked of Z3 over the encoding
// the prover uses (verify/z3_encoding.h: tensors an uninterpreted sort,
// parameters integers, operators uninterpreted functions):
//
//   lemmas       each lemma follows from the axioms;
//   redundancy   for each axiom, whether the other axioms entail it (a
//                redundant axiom often points at a mistake);
//   consistency  the axioms and lemmas do not entail that two fresh tensors
//                are equal (a wrong axiom can make every tensor equal), nor,
//                with the dims statements, that their dimension 0 or 1 is
//                (a dims equation that fails on some application the
//                axioms allow can make every dimension equal).
//
// Every premise is guarded by a literal, so an entailment names an entailing
// set (the unsat core, minimised by deletion). When no proof is found, a
// countermodel with two, then three tensors is looked for (finite_model.h);
// it shows the two differing sides. Parameters are encoded as an uninterpreted
// sort (verify::ParamSort::Uninterpreted), which changes no answer: the
// formulas compare parameters only through literals. Each check is bounded
// by Z3's resource count (a time limit at a fixed rate, verify/watchdog.h),
// so the answers, entailing sets included, are the same on every machine
// and in every build; a watchdog stops only a check that overruns it.
//
// Premises that make an operator injective (split undoes concat, found by
// injectivity.h) have no finite model with two or more tensors: then the
// finite search is skipped and the answer is unknown, naming the two
// premises. A non-entailment is shown only by a finite countermodel, so on
// taso.axioms it can be shown at most for split0_concat and split1_concat
// (the only goals with one split axiom left among the premises).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/verify/axiom_file.h"

#include <string>
#include <string_view>
#include <vector>

namespace quarry::validate_axioms {

enum class Answer { Entailed, NotEntailed, Unknown };

/// "entailed", "not-entailed", "unknown".
std::string_view answer_name(Answer a);
Answer answer_from_name(std::string_view name);

struct EntailmentResult {
  std::string name; ///< the goal (axiom or lemma), or "consistency"
  Answer answer = Answer::Unknown;
  std::vector<std::string> by; ///< a minimal entailing set, when entailed
  std::string detail;          ///< the countermodel, or why unknown
  double seconds = 0;
};

struct EntailmentOptions {
  /// Per goal, in seconds at verify::kZ3ResourcesPerSecond: the proof's Z3
  /// resources; as much again to minimise or to look for a countermodel.
  double timeout_s = 2;
  int threads = 1;
};

/// Whether the axioms and the lemmas before it entail each lemma.
std::vector<EntailmentResult> check_lemmas(const verify::AxiomFile &file,
                                           const EntailmentOptions &opts);

/// For each axiom, whether the other axioms entail it.
std::vector<EntailmentResult> check_redundancy(const verify::AxiomFile &file,
                                               const EntailmentOptions &opts);

/// Whether axioms and lemmas together entail x = y for fresh tensors x, y,
/// or with the dims statements dim(x, 0) = dim(y, 0) or dim(x, 1) =
/// dim(y, 1) (answer Entailed means the file is inconsistent). Each query
/// gets three times opts.timeout_s.
EntailmentResult check_consistency(const verify::AxiomFile &file,
                                   const EntailmentOptions &opts);

/// The detail of an inconsistency that is one of dimensions.
inline constexpr std::string_view kDimsInconsistency =
    "with the dims statements, dimension 0 or 1 of any two tensors is equal";

} // namespace quarry::validate_axioms
