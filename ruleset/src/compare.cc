//===- compare.cc - How one rule pack stands against another --------------===//
#include "quarry/ruleset/compare.h"

#include "quarry/core/fork_join.h"
#include "quarry/rulepack/rule_print.h"
#include "quarry/ruleset/rule_key.h"

#include <nlohmann/json.hpp>
#include <tbb/parallel_for.h>

#include <map>

namespace quarry::ruleset {

std::string_view standing_name(Standing s) {
  switch (s) {
  case Standing::Has:
    return "has";
  case Standing::HasReversed:
    return "has reversed";
  case Standing::Derives:
    return "derives";
  case Standing::Lacks:
    return "lacks";
  }
  return "?";
}

Comparison compare_packs(const RulePack &a, const RulePack &b,
                         const CompareOptions &opts) {
  std::map<RuleKey, std::string> forward, backward;
  for (const Rule &r : b.rules) {
    forward.emplace(rule_key(r), r.name);
    backward.emplace(rule_key(reversed_rule(r)), r.name);
  }
  // Derivations may use B's rules either way, as the optimizer does: a
  // rule states an equality.
  const std::vector<rewrite::Transformation> by =
      rewrite::make_transformations(b, {.fusions = false});

  Comparison c;
  c.rules.resize(a.rules.size());
  const ForkJoin loop;
  tbb::parallel_for(size_t{0}, a.rules.size(), loop.task([&](size_t i) {
    const Rule &r = a.rules[i];
    RuleStanding &s = c.rules[i];
    s.rule = r.name;
    const RuleKey key = rule_key(r);
    if (auto it = forward.find(key); it != forward.end()) {
      s.standing = Standing::Has;
      s.same_as = it->second;
    } else if (auto back = backward.find(key); back != backward.end()) {
      s.standing = Standing::HasReversed;
      s.same_as = back->second;
    } else if (opts.derive) {
      if (auto d = derive(r, by, opts.derive_options)) {
        s.standing = Standing::Derives;
        s.derivation = std::move(*d);
      }
    }
  }));
  loop.joined();
  for (const RuleStanding &s : c.rules) {
    c.has += s.standing == Standing::Has || s.standing == Standing::HasReversed;
    c.derives += s.standing == Standing::Derives;
    c.lacks += s.standing == Standing::Lacks;
  }
  return c;
}

std::string format_comparison(const Comparison &c) {
  std::string out;
  for (const RuleStanding &s : c.rules) {
    out += std::string(standing_name(s.standing)) + "  " + s.rule;
    if (!s.same_as.empty())
      out += " = " + s.same_as;
    if (s.standing == Standing::Derives)
      out += " " + derivation_text(s.derivation.steps, s.derivation.shapes);
    out += "\n";
  }
  out += std::to_string(c.rules.size()) + " rules: has " +
         std::to_string(c.has) + ", derives " + std::to_string(c.derives) +
         ", lacks " + std::to_string(c.lacks) + "\n";
  return out;
}

std::string comparison_json(const Comparison &c) {
  nlohmann::ordered_json j;
  j["rules"] = nlohmann::json::array();
  for (const RuleStanding &s : c.rules) {
    nlohmann::ordered_json r;
    r["rule"] = s.rule;
    r["standing"] = standing_name(s.standing);
    if (!s.same_as.empty())
      r["same_as"] = s.same_as;
    if (s.standing == Standing::Derives) {
      r["derivation"] = s.derivation.steps;
      r["shapes"] = s.derivation.shapes;
    }
    j["rules"].push_back(std::move(r));
  }
  j["has"] = c.has;
  j["derives"] = c.derives;
  j["lacks"] = c.lacks;
  return j.dump(2) + "\n";
}

} // namespace quarry::ruleset
