//===- derived_proof.cc - Proofs by rules proved before -------------------===//
#include "quarry/ruleset/derived_proof.h"

#include "quarry/rulepack/rule_print.h"

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <set>

namespace quarry::ruleset {

namespace {

struct KnownRules {
  std::deque<Rule> steps; ///< the transformations point into it
  std::vector<rewrite::Transformation> by;
  std::map<std::string, std::vector<std::string>> axioms; ///< by rule name
  std::string label;
  DeriveOptions opts;
};

} // namespace

verify::ProveFirst derivation_prover(const RulePack &known,
                                     const std::string &label,
                                     const DeriveOptions &opts,
                                     size_t *usable) {
  auto k = std::make_shared<KnownRules>();
  k->label = label;
  k->opts = opts;
  size_t n = 0;
  for (const Rule &r : known.rules) {
    if (r.provenance.status != ProofStatus::Proved || !r.preconditions.empty())
      continue;
    ++n;
    k->axioms[r.name] = r.provenance.axioms;
    k->steps.push_back(r);
    k->by.push_back(rewrite::Transformation::of_rule(k->steps.back()));
    if (reversible(r)) { // x * 0 = 0 does not make up an x read backwards
      k->steps.push_back(reversed_rule(r));
      k->by.push_back(rewrite::Transformation::of_rule(k->steps.back()));
    }
  }
  if (usable)
    *usable = n;
  return [k](const Rule &rule) -> std::optional<verify::RuleResult> {
    std::optional<Derivation> d = derive(rule, k->by, k->opts);
    // No steps: the sides differ only in commutative operand order, which
    // the axioms, not the known rules, justify; Z3 says which.
    if (!d || d->steps.empty())
      return std::nullopt;
    verify::RuleResult r;
    r.outcome = verify::Outcome::Proved;
    std::set<std::string> axioms;
    for (const std::string &step : d->steps) {
      const std::vector<std::string> &used =
          k->axioms.at(std::string(step_rule(step)));
      axioms.insert(used.begin(), used.end());
    }
    r.axioms.assign(axioms.begin(), axioms.end());
    r.detail =
        "derived from " + k->label + " " + derivation_text(d->steps, d->shapes);
    r.derivation = std::move(d->steps);
    return r;
  };
}

} // namespace quarry::ruleset
