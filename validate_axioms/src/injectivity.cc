//===- injectivity.cc - Premises that rule out finite models --------------===//
#include "quarry/validate_axioms/injectivity.h"

#include <map>
#include <set>
#include <utility>

namespace quarry::validate_axioms {

namespace {

using verify::Axiom;
using verify::AxiomFile;
using verify::Term;
using verify::VarSort;

bool is_var_of(const Axiom &a, const Term &t, VarSort sort) {
  return t.kind == Term::Kind::Var && a.sorts.count(t.name) &&
         a.sorts.at(t.name) == sort;
}

/// Which operand (0 or 1) of which binary operator result the axiom
/// recovers, when it has the shape u(qs, g(ps, x, y)) = x (or = y) with
/// every parameter a variable, those of g pairwise distinct, and x, y
/// distinct tensor variables. The parameters of u may be any variables:
/// the axiom holds for every choice, in particular one fixed per ps.
std::optional<std::pair<std::pair<int, int>, int>>
recovered_operand(const AxiomFile &file, const Axiom &a) {
  if (!a.preconditions.empty() || !is_var_of(a, a.rhs, VarSort::Tensor) ||
      a.lhs.kind != Term::Kind::Apply)
    return std::nullopt;
  const Term *inner = nullptr;
  for (const Term &arg : a.lhs.args) {
    if (is_var_of(a, arg, VarSort::Int))
      continue;
    if (arg.kind != Term::Kind::Apply || inner)
      return std::nullopt;
    inner = &arg;
  }
  if (!inner || file.ops[inner->decl].tensor_arity != 2)
    return std::nullopt;
  const size_t params = inner->args.size() - 2;
  std::set<std::string> seen;
  for (size_t i = 0; i < params; ++i)
    if (!is_var_of(a, inner->args[i], VarSort::Int) ||
        !seen.insert(inner->args[i].name).second)
      return std::nullopt;
  const Term &x = inner->args[params], &y = inner->args[params + 1];
  if (!is_var_of(a, x, VarSort::Tensor) || !is_var_of(a, y, VarSort::Tensor) ||
      x.name == y.name)
    return std::nullopt;
  const std::pair<int, int> op{inner->decl, inner->output};
  if (a.rhs.name == x.name)
    return std::make_pair(op, 0);
  if (a.rhs.name == y.name)
    return std::make_pair(op, 1);
  return std::nullopt;
}

} // namespace

std::optional<InjectiveOperator>
injective_operator(const AxiomFile &file, const std::vector<size_t> &premises) {
  // (operator, output) -> the axiom recovering operand 0, operand 1.
  std::map<std::pair<int, int>, std::pair<const Axiom *, const Axiom *>> by_op;
  for (size_t i : premises) {
    const Axiom &a = file.axioms[i];
    const auto r = recovered_operand(file, a);
    if (!r)
      continue;
    auto &slot = by_op[r->first];
    (r->second == 0 ? slot.first : slot.second) = &a;
    if (slot.first && slot.second) {
      const verify::OpDecl &d = file.ops[r->first.first];
      std::string op = d.name;
      if (d.num_outputs > 1)
        op += "." + std::to_string(r->first.second);
      return InjectiveOperator{op, slot.first->name, slot.second->name};
    }
  }
  return std::nullopt;
}

std::string describe(const InjectiveOperator &op) {
  return op.left_axiom + " and " + op.right_axiom + " make " + op.op +
         " injective, so every model with two distinct tensors is infinite";
}

} // namespace quarry::validate_axioms
