//===- instance_check.cc - One axiom instance, symbolically ---------------===//
#include "quarry/validate_axioms/instance_check.h"

#include "quarry/core/evaluate.h"
#include "quarry/validate_axioms/max_decision.h"
#include "quarry/validate_axioms/symbolic_domain.h"

namespace quarry::validate_axioms {

namespace {

/// Fresh symbols for every variable of both sides (shared by name).
void bind_variables(const Graph &g, SymbolTable &table,
                    Bindings<Polynomial> &bindings) {
  for (const Node &n : g.nodes()) {
    if (!n.is_variable() || bindings.count(n.name))
      continue;
    const Shape &shape = n.types.at(0).shape;
    bindings.emplace(n.name,
                     Tensor<Polynomial>(shape, table.elements(n.name, shape)));
  }
}

std::string index_str(const Shape &shape, int64_t flat) {
  std::vector<int64_t> idx(shape.rank());
  for (int d = shape.rank() - 1; d >= 0; --d) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  std::string s = "[";
  for (size_t i = 0; i < idx.size(); ++i)
    s += (i ? "," : "") + std::to_string(idx[i]);
  return s + "]";
}

/// The shapes of the variables and constants ("x:[1,2,1,1]
/// const_pool:[4,1,3,3]").
std::string shapes_str(const verify::AxiomInstance &inst) {
  std::string s;
  for (const Graph *g : {&inst.lhs, &inst.rhs})
    for (const Node &n : g->nodes()) {
      if (!n.is_variable() && !op_info(n.kind).traits.constant)
        continue;
      const std::string name =
          n.is_variable() ? n.name : std::string(op_name(n.kind));
      if ((" " + s).find(" " + name + ":") == std::string::npos)
        s += (s.empty() ? "" : " ") + name + ":" + n.types.at(0).shape.str();
    }
  return s;
}

std::string clip(std::string s) {
  constexpr size_t kMax = 240;
  if (s.size() > kMax)
    s = s.substr(0, kMax) + " ...";
  return s;
}

} // namespace

CaseResult check_case(const verify::AxiomFile &file, const verify::Axiom &a,
                      const Case &c, double z3_timeout_s) {
  // The prover sees neither the `if` condition nor the shapes clause's
  // ties, only the axiom's `where` and shape conditions.
  for (const auto &[pos, v] : c.untied)
    if (verify::eval_domain_expr(a.domain->shapes.at(pos.first).at(pos.second),
                                 c.values) == v)
      return {CaseOutcome::Filtered, {}}; // a plain case
  if (!verify::prover_conditions_hold(a, c.values, c.untied))
    return {CaseOutcome::Filtered, {}};
  verify::AxiomInstance inst;
  try {
    inst = verify::instantiate(file, a, c.values, c.untied);
  } catch (const Error &e) {
    if (!c.untied.empty())
      return {CaseOutcome::Filtered, {}}; // typing forces the tie here
    return {CaseOutcome::Skipped, e.what()};
  }
  const std::string where = shapes_str(inst) + " with " + inst.str();
  SymbolTable table;
  SymbolicDomain d(table);
  Bindings<Polynomial> bindings;
  bind_variables(inst.lhs, table, bindings);
  bind_variables(inst.rhs, table, bindings);
  std::vector<Tensor<Polynomial>> l, r;
  try {
    l = evaluate(d, inst.lhs, bindings);
    r = evaluate(d, inst.rhs, bindings);
  } catch (const Error &e) {
    return {CaseOutcome::Failed, where + ": cannot evaluate: " + e.what()};
  }
  const Tensor<Polynomial> &x = l.at(0), &y = r.at(0);
  if (x.shape != y.shape)
    return {CaseOutcome::Failed, where + ": the left side has shape " +
                                     x.shape.str() + ", the right side " +
                                     y.shape.str()};
  auto name = [&table](uint32_t s) { return table.name(s); };
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (x[i] == y[i])
      continue;
    std::string note;
    if (table.mentions_max(x[i]) || table.mentions_max(y[i])) {
      const Decision dec = decide_equal(table, x[i], y[i], z3_timeout_s);
      if (dec == Decision::Equal)
        continue;
      if (dec == Decision::Unknown)
        note = " (Z3 could not decide within its resource limit)";
    }
    return {CaseOutcome::Failed, where + ": element " + index_str(x.shape, i) +
                                     " differs" + note + ": left " +
                                     clip(x[i].str(name)) + ", right " +
                                     clip(y[i].str(name))};
  }
  return {CaseOutcome::Passed, {}};
}

} // namespace quarry::validate_axioms
