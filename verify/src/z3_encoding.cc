//===- z3_encoding.cc - Axioms and rule graphs as Z3 terms ----------------===//
#include "quarry/verify/z3_encoding.h"

#include <algorithm>
#include <cstdio>
#include <set>

namespace quarry::verify {

std::string param_code(const AttrSpec &spec, const AttrValue &value) {
  if (std::holds_alternative<std::monostate>(value))
    return "-1";
  if (const auto *i = std::get_if<int64_t>(&value))
    return std::to_string(*i);
  if (const auto *list = std::get_if<std::vector<int64_t>>(&value)) {
    std::string code = "1";
    for (int64_t v : *list) {
      if (v < -500000 || v >= 500000)
        throw Error("attribute '" + std::string(spec.name) + "' value " +
                    std::to_string(v) + " is out of the coded range");
      char buf[8];
      std::snprintf(buf, sizeof buf, "%06lld",
                    static_cast<long long>(v + 500000));
      code += buf;
    }
    return code;
  }
  throw Error("attribute '" + std::string(spec.name) +
              "' is a real and cannot be a parameter");
}

Encoder::Encoder(z3::context &ctx, const AxiomFile &axioms, ParamSort params)
    : ctx_(ctx), file_(axioms), tensor_(ctx.uninterpreted_sort("T")),
      param_(params == ParamSort::Int ? ctx.int_sort()
                                      : ctx.uninterpreted_sort("P")),
      int_params_(params == ParamSort::Int),
      dim_(ctx.function("dim", tensor_, ctx.int_sort(), ctx.int_sort())) {}

z3::func_decl Encoder::function(const OpDecl &d, int output,
                                const std::string &suffix) {
  std::string name = d.name;
  if (d.num_outputs > 1)
    name += "." + std::to_string(output);
  name += suffix;
  auto it = functions_.find(name);
  if (it != functions_.end())
    return it->second;
  z3::sort_vector domain(ctx_);
  for (size_t i = 0; i < d.params.size(); ++i)
    domain.push_back(param_);
  for (int i = 0; i < d.tensor_arity; ++i)
    domain.push_back(tensor_);
  z3::func_decl f = ctx_.function(name.c_str(), domain, tensor_);
  functions_.emplace(name, f);
  return f;
}

z3::expr Encoder::tensor_var(const std::string &name) {
  return ctx_.constant(name.c_str(), tensor_);
}

z3::expr Encoder::dim(const z3::expr &t, int i) {
  return dim_(t, ctx_.int_val(i));
}

z3::expr Encoder::bound_var(const Sorts &sorts, const std::string &name) {
  // '?' keeps bound variables apart from rule variables of the same name.
  const std::string sym = "?" + name;
  switch (sorts.at(name)) {
  case VarSort::Int:
    return ctx_.constant(sym.c_str(), param_);
  case VarSort::Index:
    return ctx_.int_const(sym.c_str());
  case VarSort::Tensor:
    break;
  }
  return ctx_.constant(sym.c_str(), tensor_);
}

z3::expr Encoder::literal(const std::string &code) {
  if (int_params_)
    return ctx_.int_val(code.c_str());
  auto it = literals_.find(code);
  if (it == literals_.end())
    it = literals_.emplace(code, ctx_.constant(("#" + code).c_str(), param_))
             .first;
  return it->second;
}

z3::expr Encoder::distinct_literals() {
  z3::expr_vector v(ctx_);
  for (const auto &[code, e] : literals_)
    v.push_back(e);
  return v.size() < 2 ? ctx_.bool_val(true) : z3::distinct(v);
}

std::vector<z3::expr> Encoder::literals() const {
  std::vector<z3::expr> v;
  for (const auto &[code, e] : literals_)
    v.push_back(e);
  return v;
}

z3::expr Encoder::term(const Sorts &sorts, const Term &t) {
  switch (t.kind) {
  case Term::Kind::Var:
    return bound_var(sorts, t.name);
  case Term::Kind::IntLit:
  case Term::Kind::Name:
    return literal(std::to_string(t.value));
  case Term::Kind::ListLit:
    return literal(param_code({}, t.list));
  case Term::Kind::Apply:
    break;
  }
  const OpDecl &d = file_.ops[t.decl];
  z3::expr_vector args(ctx_);
  for (const Term &arg : t.args)
    args.push_back(term(sorts, arg));
  return function(d, t.output, "")(args);
}

z3::expr Encoder::axiom_precondition(const Axiom &a) {
  z3::expr_vector pre(ctx_);
  for (const DimAtom &p : a.preconditions)
    pre.push_back(dim(bound_var(a.sorts, p.var), p.dim) ==
                  dim(bound_var(a.sorts, p.other_var), p.other_dim));
  for (const DimCondition &c : a.shape_conditions)
    pre.push_back(dim_ref(a.sorts, c.a) ==
                  (c.b ? dim_ref(a.sorts, *c.b)
                       : ctx_.int_val(static_cast<int64_t>(c.value))));
  return pre.empty() ? ctx_.bool_val(true) : z3::mk_and(pre);
}

z3::expr Encoder::axiom(const Axiom &a) {
  const z3::expr lhs = term(a.sorts, a.lhs), rhs = term(a.sorts, a.rhs);
  z3::expr_vector bound(ctx_);
  for (const std::string &v : a.vars)
    if (a.sorts.count(v))
      bound.push_back(bound_var(a.sorts, v));
  if (a.preconditions.empty() && a.shape_conditions.empty())
    return bound.empty() ? lhs == rhs : z3::forall(bound, lhs == rhs);
  const z3::expr body = z3::implies(axiom_precondition(a), lhs == rhs);
  if (bound.empty())
    return body;
  std::vector<Z3_app> vars;
  for (unsigned i = 0; i < bound.size(); ++i)
    vars.push_back(Z3_to_app(ctx_, bound[i]));
  // Left to itself, Z3 would also trigger the axiom on the dimensions its
  // precondition names, which swamps the search; the two sides alone are
  // the patterns, as for an axiom without a precondition.
  std::set<std::string> left_vars, right_vars;
  collect_variables(a.lhs, left_vars);
  collect_variables(a.rhs, right_vars);
  std::vector<Z3_pattern> patterns;
  // A pattern is an AST like any other: held, or Z3 may free it before the
  // quantifier takes it.
  std::vector<z3::ast> held;
  for (const auto &[side, term, names] :
       {std::tuple{&lhs, &a.lhs, &left_vars},
        std::tuple{&rhs, &a.rhs, &right_vars}})
    if (term->kind == Term::Kind::Apply && names->size() == vars.size()) {
      Z3_ast t[] = {*side};
      patterns.push_back(Z3_mk_pattern(ctx_, 1, t));
      held.emplace_back(ctx_, Z3_pattern_to_ast(ctx_, patterns.back()));
    }
  if (patterns.empty())
    return z3::forall(bound, body);
  Z3_ast q = Z3_mk_forall_const(
      ctx_, 0, static_cast<unsigned>(vars.size()), vars.data(),
      static_cast<unsigned>(patterns.size()), patterns.data(), body);
  ctx_.check_error();
  return z3::expr(ctx_, q);
}

z3::expr Encoder::dim_ref(const Sorts &sorts, const DimRef &d) {
  const z3::expr index = d.index_var.empty()
                             ? ctx_.int_val(static_cast<int64_t>(d.index))
                             : bound_var(sorts, d.index_var);
  return dim_(term(sorts, d.tensor), index);
}

z3::expr Encoder::dim_fact(const DimFact &f) {
  z3::expr_vector all(ctx_);
  for (const DimEquation &e : f.equations) {
    const z3::expr left = dim_ref(f.sorts, e.result);
    z3::expr_vector summands(ctx_);
    for (const DimRef &d : e.sum)
      summands.push_back(dim_ref(f.sorts, d));
    if (e.constant != 0 || summands.empty())
      summands.push_back(ctx_.int_val(static_cast<int64_t>(e.constant)));
    z3::expr body = left == z3::sum(summands);
    if (!e.when.empty()) {
      z3::expr_vector when(ctx_);
      for (const auto &[a, b] : e.when)
        when.push_back(dim_ref(f.sorts, a) == dim_ref(f.sorts, b));
      body = z3::implies(z3::mk_and(when), body);
    }
    // Every variable of the equation is on its left (the parser checks),
    // so the left side is the pattern: Z3 instantiates the equation once
    // per application of the operator, and never loops.
    std::set<std::string> names;
    collect_variables(e.result.tensor, names);
    if (!e.result.index_var.empty())
      names.insert(e.result.index_var);
    std::vector<Z3_app> vars;
    for (const std::string &v : names)
      vars.push_back(Z3_to_app(ctx_, bound_var(f.sorts, v)));
    if (vars.empty()) {
      all.push_back(body);
      continue;
    }
    Z3_ast pattern_terms[] = {left};
    Z3_pattern pattern = Z3_mk_pattern(ctx_, 1, pattern_terms);
    const z3::ast held(ctx_, Z3_pattern_to_ast(ctx_, pattern));
    Z3_ast q = Z3_mk_forall_const(ctx_, 0, static_cast<unsigned>(vars.size()),
                                  vars.data(), 1, &pattern, body);
    ctx_.check_error();
    all.push_back(z3::expr(ctx_, q));
  }
  return all.empty() ? ctx_.bool_val(true) : z3::mk_and(all);
}

void Encoder::know_dims(const z3::expr &constant,
                        const std::vector<int64_t> &shape, const Node &n) {
  const std::string key = constant.to_string();
  auto [it, fresh] = constant_shapes_.emplace(key, shape);
  if (!fresh) {
    if (it->second != shape)
      throw Error(std::string(op_name(n.kind)) + " constants of shapes " +
                  Shape(it->second).str() + " and " + Shape(shape).str() +
                  " are one term to the prover (the axioms' declaration "
                  "ignores the shape)");
    return;
  }
  for (size_t i = 0; i < shape.size(); ++i)
    constant_dims_.push_back(dim(constant, static_cast<int>(i)) ==
                             ctx_.int_val(shape[i]));
}

z3::expr Encoder::constant_dims() const {
  return constant_dims_.empty() ? ctx_.bool_val(true)
                                : z3::mk_and(constant_dims_);
}

z3::expr Encoder::dim_facts() {
  z3::expr_vector all(ctx_);
  for (const DimFact &f : file_.dim_facts)
    all.push_back(dim_fact(f));
  return all.empty() ? ctx_.bool_val(true) : z3::mk_and(all);
}

z3::expr Encoder::value(const Graph &g, ValueRef v) {
  if (!int_params_)
    throw Error("graph values need integer parameters (ParamSort::Int)");
  const Node &n = g.node(v.node);
  if (n.is_variable())
    return tensor_var(n.name);
  const OpDecl *d = file_.decl_of(n.kind);
  if (!d)
    throw Error("operator '" + std::string(op_name(n.kind)) +
                "' is not declared in the axioms");
  const OpInfo &info = op_info(n.kind);
  z3::expr_vector params(ctx_);
  const int shape_attr = find_attr(info.attrs, "shape");
  const bool shapeless =
      info.traits.constant && shape_attr >= 0 &&
      std::count(d->ignored.begin(), d->ignored.end(), shape_attr);
  for (int idx : d->params)
    params.push_back(
        ctx_.int_val(param_code(info.attrs[idx], n.attrs.value(idx)).c_str()));
  std::string suffix;
  for (size_t idx = 0; idx < info.attrs.size(); ++idx) {
    const bool listed =
        std::count(d->params.begin(), d->params.end(), int(idx)) ||
        std::count(d->ignored.begin(), d->ignored.end(), int(idx));
    if (listed || n.attrs.value(idx) == info.attrs[idx].default_value)
      continue;
    suffix += "{" + std::string(info.attrs[idx].name) + "=" +
              format_attr(info.attrs[idx], n.attrs.value(idx)) + "}";
  }
  std::vector<z3::expr> operands;
  for (ValueRef in : n.inputs)
    operands.push_back(value(g, in));
  auto apply = [&](std::span<const z3::expr> tensors) {
    z3::expr_vector args(ctx_);
    for (const z3::expr &p : params)
      args.push_back(p);
    for (const z3::expr &t : tensors)
      args.push_back(t);
    return function(*d, v.output, suffix)(args);
  };
  if (static_cast<int>(operands.size()) == d->tensor_arity) {
    const z3::expr e = apply(operands);
    if (shapeless && n.attrs.has(shape_attr))
      know_dims(e, n.attrs.list(shape_attr), n);
    return e;
  }
  // A variadic operator declared binary: nest to the left.
  if (d->tensor_arity != 2 || operands.size() < 2)
    throw Error(std::string(op_name(n.kind)) + " with " +
                std::to_string(operands.size()) +
                " operands does not match its declaration");
  z3::expr acc = apply(std::span(operands).first(2));
  for (size_t i = 2; i < operands.size(); ++i) {
    const z3::expr pair[] = {acc, operands[i]};
    acc = apply(pair);
  }
  return acc;
}

} // namespace quarry::verify
