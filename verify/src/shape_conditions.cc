//===- shape_conditions.cc - What an axiom's shapes clause states ---------===//
#include "quarry/verify/shape_conditions.h"

#include <map>
#include <set>
#include <utility>

namespace quarry::verify {

namespace {

/// The instances of the domain a dimension is tried at, drawn with a fixed
/// seed (the conditions are the same on every run), and the values it is
/// given there instead of the clause's.
constexpr uint64_t kBaseSeed = 1;
constexpr int kBases = 16;
constexpr int64_t kTried[] = {1, 2, 3, 4, 6};

bool is_constant(const Axiom &a, const std::string &key) {
  return !a.sorts.count(key);
}

/// The terms a shapes key names: the variable, or each application of the
/// constant as written (once per distinct form).
std::vector<Term> terms_of(const AxiomFile &file, const Axiom &a,
                           const std::string &key) {
  if (!is_constant(a, key)) {
    Term t;
    t.kind = Term::Kind::Var;
    t.name = key;
    return {t};
  }
  std::vector<Term> all, out;
  collect_applications(a.lhs, key, all);
  collect_applications(a.rhs, key, all);
  std::set<std::string> seen;
  for (Term &t : all)
    if (seen.insert(print_term(file, t)).second)
      out.push_back(std::move(t));
  return out;
}

/// Whether typing both sides lets `p` differ from the clause's value at
/// one of `bases`.
bool typing_frees(const AxiomFile &file, const Axiom &a,
                  const std::vector<AxiomInstance> &bases,
                  const ShapePosition &p) {
  const std::vector<DomainExpr> &dims = a.domain->shapes.at(p.first);
  for (const AxiomInstance &base : bases) {
    const int64_t given = eval_domain_expr(dims[p.second], base.values);
    for (int64_t v : kTried) {
      if (v == given)
        continue;
      try {
        instantiate(file, a, base.values, {{p, v}});
        return true;
      } catch (const Error &) {
        // Ill-typed: typing forces this value here.
      }
    }
  }
  return false;
}

/// The position `p`'s equation is stated against: one of the same term
/// first (const_imm: [b, b] relates the constant to itself, which the
/// prover knows of every constant in a rule), then a constant's, then one
/// typing forces, then the first.
const TiedPosition &reference(const Axiom &a,
                              const std::vector<const TiedPosition *> &group,
                              const TiedPosition &p,
                              const std::set<ShapePosition> &free) {
  auto pick = [&](auto pred) -> const TiedPosition * {
    for (const TiedPosition *q : group)
      if (q != &p && pred(*q))
        return q;
    return nullptr;
  };
  if (auto *q = pick(
          [&](const TiedPosition &t) { return t.pos.first == p.pos.first; }))
    return *q;
  if (auto *q = pick(
          [&](const TiedPosition &t) { return is_constant(a, t.pos.first); }))
    return *q;
  if (auto *q = pick([&](const TiedPosition &t) { return !free.count(t.pos); }))
    return *q;
  return *pick([](const TiedPosition &) { return true; });
}

DimRef dim_ref(const Term &t, int index) {
  DimRef d;
  d.tensor = t;
  d.index = index;
  return d;
}

/// A `where` atom's two sides.
std::pair<DimRef, DimRef> sides(const DimAtom &w) {
  Term x, y;
  x.kind = y.kind = Term::Kind::Var;
  x.name = w.var;
  y.name = w.other_var;
  return {dim_ref(x, w.dim), dim_ref(y, w.other_dim)};
}

} // namespace

std::vector<TiedPosition> tied_positions(const Axiom &a) {
  std::vector<TiedPosition> out;
  if (!a.domain)
    return out;
  std::map<std::string, int> uses;
  for (const auto &[key, dims] : a.domain->shapes)
    for (const DomainExpr &d : dims)
      if (d.kind == DomainExpr::Kind::Var)
        ++uses[d.name];
  for (const auto &[key, dims] : a.domain->shapes)
    for (size_t i = 0; i < dims.size(); ++i) {
      const DomainExpr &d = dims[i];
      const ShapePosition pos{key, static_cast<int>(i)};
      if (d.kind == DomainExpr::Kind::Int)
        out.push_back({pos, "", d.value});
      // "k.0" and parameters are the prover's parameters, not dimensions.
      else if (d.kind == DomainExpr::Kind::Var &&
               d.name.find('.') == std::string::npos &&
               !a.sorts.count(d.name) && uses[d.name] > 1)
        out.push_back({pos, d.name, 0});
    }
  return out;
}

std::vector<DimCondition> derive_shape_conditions(const AxiomFile &file,
                                                  const Axiom &a) {
  std::vector<DimCondition> out;
  if (!a.domain)
    return out;
  const std::vector<TiedPosition> tied = tied_positions(a);
  if (tied.empty())
    return out;
  const std::vector<AxiomInstance> bases =
      sample_instances(file, a, kBaseSeed, kBases);
  if (bases.empty())
    throw Error(a.pos, a.name + ": no shape its clauses give type-checks both "
                                "sides (the clauses contradict each other or "
                                "the operators)");
  std::set<ShapePosition> free;
  for (const TiedPosition &t : tied)
    if (typing_frees(file, a, bases, t.pos))
      free.insert(t.pos);
  std::map<std::string, std::vector<const TiedPosition *>> groups;
  for (const TiedPosition &t : tied)
    if (!t.var.empty())
      groups[t.var].push_back(&t);

  // `where` atoms, either way round, are stated already.
  std::set<std::string> stated;
  auto key = [&](const DimRef &x, const DimRef &y) {
    std::string l = print_term(file, x.tensor) + "#" + std::to_string(x.index);
    std::string r = print_term(file, y.tensor) + "#" + std::to_string(y.index);
    return l < r ? l + "=" + r : r + "=" + l;
  };
  for (const DimAtom &w : a.preconditions) {
    const auto [x, y] = sides(w);
    stated.insert(key(x, y));
  }
  for (const TiedPosition &t : tied) {
    if (!free.count(t.pos))
      continue;
    for (const Term &term : terms_of(file, a, t.pos.first)) {
      const DimRef left = dim_ref(term, t.pos.second);
      if (t.var.empty()) {
        const std::string k = key(left, left) + "=" + std::to_string(t.literal);
        if (stated.insert(k).second)
          out.push_back({left, std::nullopt, t.literal});
        continue;
      }
      const TiedPosition &ref = reference(a, groups[t.var], t, free);
      for (const Term &other : terms_of(file, a, ref.pos.first)) {
        const DimRef right = dim_ref(other, ref.pos.second);
        if (stated.insert(key(left, right)).second)
          out.push_back({left, right, 0});
      }
    }
  }
  return out;
}

std::optional<int64_t> dim_value(const Axiom &a, const Assignment &values,
                                 const ShapeOverrides &overrides,
                                 const DimRef &d) {
  const std::string &key = d.tensor.name;
  const int i = static_cast<int>(d.index);
  auto it = a.domain->shapes.find(key);
  if (it == a.domain->shapes.end() || i < 0 ||
      i >= static_cast<int>(it->second.size()))
    return std::nullopt;
  auto o = overrides.find({key, i});
  if (o != overrides.end())
    return o->second;
  return eval_domain_expr(it->second[i], values);
}

bool prover_conditions_hold(const Axiom &a, const Assignment &values,
                            const ShapeOverrides &overrides) {
  for (const DimAtom &w : a.preconditions) {
    const auto [x, y] = sides(w);
    const auto l = dim_value(a, values, overrides, x);
    const auto r = dim_value(a, values, overrides, y);
    if (!l || !r || *l != *r)
      return false;
  }
  for (const DimCondition &c : a.shape_conditions) {
    const auto l = dim_value(a, values, overrides, c.a);
    const auto r = c.b ? dim_value(a, values, overrides, *c.b)
                       : std::optional<int64_t>(c.value);
    if (!l || !r || *l != *r)
      return false;
  }
  return true;
}

std::string print_condition(const AxiomFile &file, const DimCondition &c) {
  auto dim = [&](const DimRef &d) {
    return "dim(" + print_term(file, d.tensor) + ", " +
           std::to_string(d.index) + ")";
  };
  return dim(c.a) + " = " + (c.b ? dim(*c.b) : std::to_string(c.value));
}

} // namespace quarry::verify
