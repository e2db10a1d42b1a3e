//===- compare.h - How one rule pack stands against another ----*- C++ -*-===//
//
// For each rule of pack A: B has it (the same rule up to variable names and
// output order, or the same read backwards), B derives it (derivation.h),
// or B lacks it. Rules are taken in A's order; the result does not depend
// on the thread count.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/rulepack/rule_pack.h"
#include "quarry/ruleset/derivation.h"

#include <string>
#include <vector>

namespace quarry::ruleset {

enum class Standing { Has, HasReversed, Derives, Lacks };

/// "has", "has reversed", "derives", "lacks".
std::string_view standing_name(Standing s);

struct RuleStanding {
  std::string rule; ///< A's rule
  Standing standing = Standing::Lacks;
  std::string same_as; ///< B's rule, for Has and HasReversed
  Derivation derivation;
};

struct CompareOptions {
  bool derive = true;
  DeriveOptions derive_options;
};

struct Comparison {
  std::vector<RuleStanding> rules;
  int has = 0, derives = 0, lacks = 0; ///< has counts reversed ones too
};

Comparison compare_packs(const RulePack &a, const RulePack &b,
                         const CompareOptions &opts = {});

/// One line per rule of A, then "N rules: B has N, derives N, lacks N".
std::string format_comparison(const Comparison &c);

/// The comparison as JSON (rules with standing, same_as, derivation).
std::string comparison_json(const Comparison &c);

} // namespace quarry::ruleset
