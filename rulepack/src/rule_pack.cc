//===- rule_pack.cc - Rule invariants and pack summaries ------------------===//
#include "quarry/rulepack/rule_pack.h"

#include "quarry/core/error.h"
#include "quarry/core/text.h"

namespace quarry {

std::string_view proof_status_name(ProofStatus status) {
  switch (status) {
  case ProofStatus::Unknown:
    return "unknown";
  case ProofStatus::Proved:
    return "proved";
  case ProofStatus::Unproved:
    return "unproved";
  case ProofStatus::Refuted:
    return "refuted";
  }
  return "unknown";
}

std::string DimEquality::str() const {
  return "dim(" + var + "," + std::to_string(dim) + ") = dim(" + other_var +
         "," + std::to_string(other_dim) + ")";
}

bool DimEquality::holds(const Shape &a, const Shape &b) const {
  return dim < a.rank() && other_dim < b.rank() && a[dim] == b[other_dim];
}

bool all_hold(const std::vector<DimEquality> &eqs,
              const std::map<std::string, Shape> &shapes) {
  for (const DimEquality &d : eqs) {
    auto a = shapes.find(d.var), b = shapes.find(d.other_var);
    if (a == shapes.end() || b == shapes.end() ||
        !d.holds(a->second, b->second))
      return false;
  }
  return true;
}

void check_rule(const Rule &rule) {
  const size_t ns = rule.source.outputs().size();
  const size_t nt = rule.target.outputs().size();
  if (ns == 0)
    throw Error("the source has no outputs");
  if (ns != nt)
    throw Error("the source has " + std::to_string(ns) +
                " outputs but the target " + std::to_string(nt));
  // A target variable the source does not bind would have no value when the
  // rule is applied.
  for (const Node &n : rule.target.nodes()) {
    if (!n.is_variable())
      continue;
    int32_t s = rule.source.find_variable(n.name);
    if (s < 0)
      throw Error("target variable '" + n.name +
                  "' is not bound by the source");
    if (rule.source.node(s).kind != n.kind)
      throw Error("variable '" + n.name + "' is declared '" +
                  std::string(op_name(rule.source.node(s).kind)) +
                  "' in the source but '" + std::string(op_name(n.kind)) +
                  "' in the target");
  }
  for (const DimEquality &c : rule.preconditions)
    for (const std::string *v : {&c.var, &c.other_var})
      if (rule.source.find_variable(*v) < 0)
        throw Error("precondition " + c.str() + " names '" + *v +
                    "', not a source variable");
}

std::vector<std::string> operators_used(const std::vector<Rule> &rules) {
  std::vector<bool> used(kNumOps, false);
  for (const Rule &r : rules)
    for (const Graph *g : {&r.source, &r.target})
      for (const Node &n : g->nodes())
        if (!n.is_variable())
          used[static_cast<size_t>(n.kind)] = true;
  std::vector<std::string> names;
  for (int k = 0; k < kNumOps; ++k)
    if (used[k])
      names.emplace_back(op_name(static_cast<OpKind>(k)));
  return names;
}

Rule reversed_rule(const Rule &rule) {
  Rule r = rule;
  std::swap(r.source, r.target);
  r.name += kReversedSuffix;
  return r;
}

bool reversible(const Rule &rule) {
  for (const Node &n : rule.source.nodes()) {
    if (!n.is_variable())
      continue;
    const int32_t t = rule.target.find_variable(n.name);
    if (t < 0 || rule.target.node(t).kind != n.kind)
      return false;
  }
  // Preconditions name source variables (check_rule), so the target binds
  // those too.
  return true;
}

std::string_view step_rule(std::string_view step) {
  if (step.ends_with(kReversedSuffix))
    step.remove_suffix(kReversedSuffix.size());
  return step;
}

std::string reversed_step(std::string_view step) {
  return step.ends_with(kReversedSuffix)
             ? std::string(step_rule(step))
             : std::string(step) + std::string(kReversedSuffix);
}

Rule parse_rule(const std::string &name, std::string_view source,
                std::string_view target) {
  Rule r;
  r.name = name;
  r.source = parse_graph(source, name + ".source");
  r.target = parse_graph(target, name + ".target");
  check_rule(r);
  return r;
}

} // namespace quarry
