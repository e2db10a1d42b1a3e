//===- derived_proof.h - Proofs by rules proved before --------*- C++ -*-===//
//
// A candidate whose source the rules of an already proved pack rewrite
// into its target (derivation.h) needs no Z3: the derivation is its proof.
// `quarry verify --known PACK` offers this to the verifier as its cheaper
// first proof (VerifyOptions::prove_first). A proved rule is an equation,
// so each is applied in both directions; rules with shape preconditions
// are not used, since a derivation is found at one choice of shapes.
//
// A derivation found at small shapes could rest on a step that only those
// shapes allow; the verifier offers a rule to it only when the float check
// on random inputs at several shapes (verify/refute.h) finds no
// counterexample. The proof records the derivation and, as its axioms,
// those of the rules it used.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/rulepack/rule_pack.h"
#include "quarry/ruleset/derivation.h"
#include "quarry/verify/verifier.h"

#include <string>

namespace quarry::ruleset {

/// A prove_first for the verifier: derivations by `known`'s proved rules
/// without preconditions. `label` names the pack in each proof's detail.
/// `usable`, when given, is set to how many of its rules are used.
verify::ProveFirst derivation_prover(const RulePack &known,
                                     const std::string &label,
                                     const DeriveOptions &opts = {},
                                     size_t *usable = nullptr);

} // namespace quarry::ruleset
