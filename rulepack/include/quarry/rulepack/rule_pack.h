//===- rule_pack.h - Rewrite rules and packs of them ----------*- C++ -*-===//
//
// A Rule is a pair of pattern graphs: source.outputs()[i] may be replaced by
// target.outputs()[i] for every i. Patterns are Graphs whose variables have
// no shapes; a variable of the target is the variable of the source with the
// same name. A RulePack is what a rule file holds: a header describing how
// the rules were made, and the rules with their provenance.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/graph.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace quarry {

/// The `format` text of the rule packs this version reads and writes.
inline constexpr std::string_view kRulePackFormat = "quarry.rulepack.v1";

enum class ProofStatus {
  Unknown,  ///< no proof attempted
  Proved,   ///< equivalence proved
  Unproved, ///< a proof was attempted and did not succeed
  Refuted,  ///< a counterexample shows the rule is wrong
};

/// "unknown", "proved", "unproved", "refuted".
std::string_view proof_status_name(ProofStatus status);

/// Where a rule came from and what is known about its correctness.
struct Provenance {
  std::string origin;      ///< "taso-import", "generated", ...
  std::string source_file; ///< base name of the file it was read from
  std::optional<int64_t> source_index; ///< its position in that file
  ProofStatus status = ProofStatus::Unknown;
  std::vector<std::string> axioms; ///< axioms the proof used
  double prove_seconds = 0;
  std::string prover;
  std::string prover_details;

  friend bool operator==(const Provenance &, const Provenance &) = default;
};

/// A shape condition: dimension `dim` of variable `var` equals dimension
/// `other_dim` of variable `other_var`. A rule proved only under such
/// conditions (a grouped convolution needing equal channel counts) carries
/// them, and may be applied only where they hold.
struct DimEquality {
  std::string var;
  int dim = 0;
  std::string other_var;
  int other_dim = 0;

  /// "dim(x1,1) = dim(x2,1)"
  std::string str() const;
  /// Whether it holds when `var` has shape `a` and `other_var` shape `b`
  /// (not where either lacks the dimension).
  bool holds(const Shape &a, const Shape &b) const;
  friend bool operator==(const DimEquality &, const DimEquality &) = default;
};

/// Whether every equality holds where the variables have `shapes` (one
/// naming a variable without a shape does not).
bool all_hold(const std::vector<DimEquality> &eqs,
              const std::map<std::string, Shape> &shapes);

struct Rule {
  std::string name;
  Graph source;
  Graph target;
  Provenance provenance;
  /// All must hold for the rule to apply; empty: holds for any match.
  std::vector<DimEquality> preconditions = {};
};

/// Checks what every rule must satisfy: as many target outputs as source
/// outputs, and every target variable bound by a source variable of the
/// same name and kind. Throws quarry::Error (without the rule's name).
void check_rule(const Rule &rule);

/// A rule from the text form (docs/TEXT_FORMAT.md) of its two patterns,
/// checked with check_rule; parse errors name "NAME.source" or
/// "NAME.target". Provenance is left empty for the caller.
Rule parse_rule(const std::string &name, std::string_view source,
                std::string_view target);

struct RulePackHeader {
  std::string tool_version;           ///< the quarry version that made the pack
  std::vector<std::string> operators; ///< operator names the rules may use
  /// Generator or importer settings, in a fixed order.
  std::vector<std::pair<std::string, std::string>> settings;
  uint64_t seed = 0;
  std::string description;

  friend bool operator==(const RulePackHeader &,
                         const RulePackHeader &) = default;
};

/// How a derivation step names a rule applied from target to source.
inline constexpr std::string_view kReversedSuffix = " reversed";

/// The rule read from target to source, named "NAME reversed" (its
/// preconditions kept).
Rule reversed_rule(const Rule &rule);
/// Whether the rule may also be applied from target to source: its target
/// binds every source variable, with the same kind. x * 0 = 0 holds both
/// ways, but read backwards it would have to make up an x.
bool reversible(const Rule &rule);
/// The rule a derivation step applies: "NAME" or "NAME reversed" -> NAME.
std::string_view step_rule(std::string_view step);
/// The step that undoes `step`: NAME <-> "NAME reversed".
std::string reversed_step(std::string_view step);

/// A rule a pack leaves out because its rules derive it: `steps` are rule
/// names of the pack, applied in order ("NAME reversed": NAME applied from
/// target to source), at the variable shapes `shapes` describes.
struct DerivedRule {
  std::string name;
  std::vector<std::string> steps;
  std::string shapes;
  friend bool operator==(const DerivedRule &, const DerivedRule &) = default;
};

struct RulePack {
  RulePackHeader header;
  std::vector<Rule> rules;
  std::vector<DerivedRule> derived = {};
};

/// Names of the operators (not variables) the rules use, in registry order.
std::vector<std::string> operators_used(const std::vector<Rule> &rules);

} // namespace quarry
