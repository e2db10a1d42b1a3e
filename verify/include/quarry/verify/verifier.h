//===- verifier.h - Proving rules from axioms with Z3 ---------*- C++ -*-===//
//
// For a rule with mapped outputs (s_i, t_i), Z3 is asked whether the axioms
// together with "s_i != t_i for some i" are unsatisfiable. Every axiom is
// tracked, so a proof names the axioms it used (the unsat core). Axioms with
// a `where` precondition can only fire when the precondition is assumed: the
// verifier offers Z3 tracked candidate assumptions dim(a,i) = dim(b,j) over
// the rule's variables, and a proof that needs some of them is
// proved-with-precondition, carrying the (minimised) assumptions it used.
//
// A caller may offer a cheaper proof first (VerifyOptions::prove_first): a
// derivation by rules proved earlier, say. Z3 runs only when it fails.
//
// Every rule gets a fresh Z3 context, so results do not depend on which
// worker ran which rule before. Each check is bounded by Z3's resource
// count, not by the clock, so a rule's outcome is the same on every machine,
// however loaded, and at any thread or shard count: the per-rule time limit
// is turned into resources at a fixed rate (kZ3ResourcesPerSecond). The
// clock only guards against a check that overruns its resources: a
// watchdog stops it at a multiple of the time limit, and the outcome then
// says so.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/rulepack/rule_pack.h"
#include "quarry/verify/axiom_file.h"
#include "quarry/verify/watchdog.h" // kZ3ResourcesPerSecond

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace quarry::verify {

enum class Outcome { Proved, ProvedWithPrecondition, Unproved, Refuted };

/// "proved", "proved-with-precondition", "unproved", "refuted".
std::string_view outcome_name(Outcome o);
/// The inverse; throws quarry::Error for an unknown name.
Outcome outcome_from_name(std::string_view name);

struct RuleResult {
  std::string name;
  size_t index = 0; ///< position in the input
  Outcome outcome = Outcome::Unproved;
  double seconds = 0;
  std::vector<std::string> axioms; ///< used by the proof
  std::vector<DimEquality> preconditions;
  std::string detail; ///< why unproved, or the counterexample
  uint64_t rule_hash = 0;
  /// Z3's resource count of the first check (0 when Z3 did not run): the
  /// same in every build and on every machine.
  uint64_t z3_resources = 0;
  /// Set when the rule was proved by rewriting with rules proved before
  /// (prove_first) rather than by Z3: the steps, as in RulePack::derived.
  std::vector<std::string> derivation = {};
};

/// A cheaper proof offered before Z3: a result that proves the rule, or
/// nullopt to leave it to Z3.
using ProveFirst = std::function<std::optional<RuleResult>(const Rule &)>;

struct VerifyOptions {
  /// Per rule: the first check's Z3 resources, timeout_s times
  /// kZ3ResourcesPerSecond (the clock guard stops it only well past this).
  double timeout_s = 10;
  bool minimize_core = false; ///< drop axioms the proof does not need
  int threads = 1;
  bool refute = true; ///< look for a counterexample before proving
  uint64_t seed = 1;
  /// Tried before Z3 on every rule no counterexample refutes (that search
  /// runs first whenever this is set); a result it returns stands. Called
  /// from the worker threads at once: it must be safe to call concurrently.
  ProveFirst prove_first = {};
};

/// A hash of what a rule says (its graphs), for matching resumed results.
uint64_t rule_hash(const Rule &rule);

/// Proves one rule. Never throws for a rule the axioms cannot express (the
/// outcome is then unproved, with the reason in `detail`).
RuleResult verify_rule(const AxiomFile &axioms, const Rule &rule,
                       const VerifyOptions &opts);

/// Proves rules in parallel (oneTBB, opts.threads workers). `done` holds
/// results to reuse (by index); `on_result` is called, serialized, after
/// each new result. Returns results in input order.
std::vector<RuleResult>
verify_rules(const AxiomFile &axioms, const std::vector<Rule> &rules,
             const VerifyOptions &opts,
             const std::vector<std::optional<RuleResult>> &done = {},
             const std::function<void(const RuleResult &)> &on_result = {});

/// The prover a derived rule's provenance names.
inline constexpr std::string_view kDerivationProver = "quarry derivation";

/// What reaches Z3's outcomes: its version and the revision of quarry's
/// encoding and search ("z3 4.8.12.0, quarry verify r3"), raised whenever
/// a change there can change an outcome. Proofs record it, and a proof
/// cache of another prover is refused.
std::string prover_identity();

/// `result` recorded in the rule's provenance and preconditions.
Rule record_proof(Rule rule, const RuleResult &result);

/// The rules of `input` that `results` (one per rule, in input order)
/// prove, each with its proof recorded; the header says they were proved
/// from `axioms_file` and keeps the input's description as a setting.
RulePack proved_pack(const RulePack &input,
                     const std::vector<RuleResult> &results,
                     const std::string &axioms_file);

} // namespace quarry::verify
