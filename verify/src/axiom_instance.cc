//===- axiom_instance.cc - Axioms on concrete small shapes ----------------===//
#include "quarry/verify/axiom_instance.h"

#include "quarry/core/hash.h"

#include <set>

namespace quarry::verify {

namespace {

struct Builder {
  const AxiomFile &file;
  const Axiom &axiom;
  const Assignment &values;
  const ShapeOverrides &overrides;
  Graph g;
  std::map<std::string, ValueRef> vars;

  Shape shape_of(const std::string &key) {
    Shape s;
    for (const DomainExpr &d : axiom.domain->shapes.at(key)) {
      auto it = overrides.find({key, static_cast<int>(s.dims.size())});
      s.dims.push_back(it != overrides.end() ? it->second
                                             : eval_domain_expr(d, values));
    }
    return s;
  }

  AttrValue param(const AttrSpec &spec, const Term &t) {
    std::vector<int64_t> v;
    switch (t.kind) {
    case Term::Kind::Var:
      v = values.at(t.name);
      break;
    case Term::Kind::ListLit:
      v = t.list;
      break;
    default:
      v = {t.value};
    }
    if (spec.kind == AttrKind::IntList)
      return v;
    if (v.size() != 1)
      throw Error("parameter '" + std::string(spec.name) +
                  "' takes an integer");
    return v[0];
  }

  ValueRef build(const Term &t) {
    if (t.kind == Term::Kind::Var) {
      auto it = vars.find(t.name);
      if (it == vars.end())
        it = vars.emplace(t.name, g.input(t.name, shape_of(t.name))).first;
      return it->second;
    }
    const OpDecl &d = file.ops[t.decl];
    const OpInfo &info = op_info(d.kind);
    Attrs attrs = Attrs::defaults(info.attrs);
    std::vector<ValueRef> in;
    for (size_t i = 0; i < t.args.size(); ++i) {
      if (i < d.params.size())
        attrs.set(d.params[i], param(info.attrs[d.params[i]], t.args[i]));
      else
        in.push_back(build(t.args[i]));
    }
    const int shape_attr = find_attr(info.attrs, "shape");
    if (info.traits.constant && shape_attr >= 0) {
      if (!axiom.domain->shapes.count(d.name))
        throw Error(axiom.name + ": give the shape of " + d.name +
                    " under 'shapes'");
      attrs.set(shape_attr, shape_of(d.name).dims);
    }
    return g.add(d.kind, std::move(attrs), std::move(in))[t.output];
  }

  Graph side(const Term &t) {
    g = Graph();
    vars.clear();
    g.mark_output(build(t));
    return std::move(g);
  }
};

std::string value_str(const DomainValue &v) {
  if (v.size() == 1)
    return std::to_string(v[0]);
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

} // namespace

std::string AxiomInstance::str() const {
  std::string s;
  for (const auto &[name, v] : values)
    s += (s.empty() ? "" : " ") + name + "=" + value_str(v);
  return s;
}

int64_t eval_domain_expr(const DomainExpr &e, const Assignment &values) {
  switch (e.kind) {
  case DomainExpr::Kind::Int:
    return e.value;
  case DomainExpr::Kind::Var: {
    // "k.1" is element 1 of the list k.
    const size_t dot = e.name.find('.');
    const DomainValue &v = values.at(e.name.substr(0, dot));
    if (dot != std::string::npos) {
      const size_t i = std::stoul(e.name.substr(dot + 1));
      if (i >= v.size())
        throw Error(e.pos, "'" + e.name + "': the list has " +
                               std::to_string(v.size()) + " elements");
      return v[i];
    }
    if (v.size() != 1)
      throw Error(e.pos, "'" + e.name + "' is a list, not a number");
    return v[0];
  }
  case DomainExpr::Kind::Not:
    return !eval_domain_expr(e.args[0], values);
  case DomainExpr::Kind::Binary:
    break;
  }
  const int64_t l = eval_domain_expr(e.args[0], values);
  if (e.op == "and" && !l)
    return 0;
  if (e.op == "or" && l)
    return 1;
  const int64_t r = eval_domain_expr(e.args[1], values);
  if ((e.op == "/" || e.op == "%") && r == 0)
    throw Error(e.pos, "division by zero");
  if (e.op == "+")
    return l + r;
  if (e.op == "-")
    return l - r;
  if (e.op == "*")
    return l * r;
  if (e.op == "/")
    return l / r;
  if (e.op == "%")
    return l % r;
  if (e.op == "=")
    return l == r;
  if (e.op == "!=")
    return l != r;
  if (e.op == "<")
    return l < r;
  if (e.op == "<=")
    return l <= r;
  if (e.op == ">")
    return l > r;
  if (e.op == ">=")
    return l >= r;
  return r != 0; // "and" with l true, "or" with l false
}

bool condition_holds(const Axiom &a, const Assignment &values) {
  return !a.domain || !a.domain->condition ||
         eval_domain_expr(*a.domain->condition, values) != 0;
}

AxiomInstance instantiate(const AxiomFile &file, const Axiom &a,
                          const Assignment &values,
                          const ShapeOverrides &overrides) {
  if (!a.domain)
    throw Error(a.name + " has no small-shape domain");
  Builder b{file, a, values, overrides, {}, {}};
  AxiomInstance inst;
  inst.values = values;
  inst.lhs = b.side(a.lhs);
  inst.rhs = b.side(a.rhs);
  return inst;
}

uint64_t domain_size(const Axiom &a) {
  if (!a.domain)
    return 0;
  uint64_t n = 1;
  for (const auto &[name, set] : a.domain->values)
    n *= set.size();
  return n;
}

std::vector<AxiomInstance> sample_instances(const AxiomFile &file,
                                            const Axiom &a, uint64_t seed,
                                            int count, int max_tries) {
  std::vector<AxiomInstance> out;
  if (!a.domain)
    return out;
  std::set<Assignment> seen;
  for (int t = 0; t < max_tries && static_cast<int>(out.size()) < count; ++t) {
    Assignment values;
    for (const std::string &v : a.domain->value_order) {
      const auto &set = a.domain->values.at(v);
      const uint64_t bits = mix64(hash_combine(
          hash_combine(seed, hash_bytes(v)), static_cast<uint64_t>(t)));
      values[v] = set[bits % set.size()];
    }
    if (!seen.insert(values).second || !condition_holds(a, values))
      continue;
    try {
      out.push_back(instantiate(file, a, values));
    } catch (const Error &) {
      // Ill-typed under these values: not part of the domain.
    }
  }
  return out;
}

} // namespace quarry::verify
