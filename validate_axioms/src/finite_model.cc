//===- finite_model.cc - Finite countermodels by grounding ----------------===//
#include "quarry/validate_axioms/finite_model.h"

#include "quarry/verify/watchdog.h"
#include "quarry/verify/z3_encoding.h"

namespace quarry::validate_axioms {

namespace {

using verify::Axiom;
using verify::VarSort;

/// Every instance of `body` with its variables drawn from the elements.
void add_instances(z3::solver &solver, const z3::expr &body,
                   const std::vector<z3::expr> &vars,
                   const std::vector<const std::vector<z3::expr> *> &choices) {
  z3::context &ctx = solver.ctx();
  std::vector<size_t> at(vars.size(), 0);
  z3::expr_vector from(ctx);
  for (const z3::expr &v : vars)
    from.push_back(v);
  while (true) {
    z3::expr_vector to(ctx);
    for (size_t i = 0; i < vars.size(); ++i)
      to.push_back((*choices[i])[at[i]]);
    solver.add(vars.empty() ? body : z3::expr(body).substitute(from, to));
    size_t i = 0;
    for (; i < vars.size(); ++i) {
      if (++at[i] < choices[i]->size())
        break;
      at[i] = 0;
    }
    if (i == vars.size())
      return;
  }
}

/// x equals one of the elements, for every x of their sort.
z3::expr closure(z3::context &ctx, const std::vector<z3::expr> &elements) {
  z3::expr x = ctx.constant("closure x", elements[0].get_sort());
  z3::expr_vector options(ctx);
  for (const z3::expr &e : elements)
    options.push_back(x == e);
  return z3::forall(x, z3::mk_or(options));
}

} // namespace

std::optional<std::string>
find_finite_model(const verify::AxiomFile &file,
                  const std::vector<size_t> &premises, const Axiom *goal,
                  int size, double timeout_s) {
  z3::context ctx;
  verify::Encoder enc(ctx, file, verify::ParamSort::Uninterpreted);
  const z3::sort tensor = enc.tensor_var("x").get_sort();
  const z3::sort param = ctx.uninterpreted_sort("P");
  // Encode first: the literals become known as terms are built.
  struct Body {
    z3::expr formula;
    std::vector<z3::expr> vars;
    std::vector<bool> is_tensor;
  };
  std::vector<Body> bodies;
  for (size_t i : premises) {
    const Axiom &a = file.axioms[i];
    Body b{z3::implies(enc.axiom_precondition(a),
                       enc.axiom_term(a, a.lhs) == enc.axiom_term(a, a.rhs)),
           {},
           {}};
    for (const std::string &v : a.vars) {
      if (!a.sorts.count(v))
        continue;
      const bool t = a.sorts.at(v) == VarSort::Tensor;
      b.vars.push_back(ctx.constant(("?" + v).c_str(), t ? tensor : param));
      b.is_tensor.push_back(t);
    }
    bodies.push_back(std::move(b));
  }
  z3::expr lhs = enc.tensor_var("fresh x"), rhs = enc.tensor_var("fresh y");
  z3::expr pre = ctx.bool_val(true);
  if (goal) {
    lhs = enc.axiom_term(*goal, goal->lhs);
    rhs = enc.axiom_term(*goal, goal->rhs);
    pre = enc.axiom_precondition(*goal);
  }
  std::vector<z3::expr> tensors, params = enc.literals();
  for (int i = 0; i < size; ++i)
    tensors.push_back(ctx.constant(("t" + std::to_string(i)).c_str(), tensor));
  params.push_back(ctx.constant("#other", param));

  z3::solver solver(ctx);
  for (const auto *set : {&tensors, &params}) {
    z3::expr_vector v(ctx);
    for (const z3::expr &e : *set)
      v.push_back(e);
    if (v.size() > 1)
      solver.add(z3::distinct(v));
    solver.add(closure(ctx, *set));
  }
  for (const Body &b : bodies) {
    std::vector<const std::vector<z3::expr> *> choices;
    for (bool t : b.is_tensor)
      choices.push_back(t ? &tensors : &params);
    add_instances(solver, b.formula, b.vars, choices);
  }
  solver.add(pre);
  solver.add(lhs != rhs);
  const z3::check_result res = verify::check_within(
      solver, z3::expr_vector(ctx), verify::guard_seconds(timeout_s),
      verify::resources_for(timeout_s));
  if (res != z3::sat)
    return std::nullopt;
  const z3::model m = solver.get_model();
  return "a model with " + std::to_string(size) +
         " tensors where the left side is " + m.eval(lhs, true).to_string() +
         " and the right side " + m.eval(rhs, true).to_string();
}

} // namespace quarry::validate_axioms
