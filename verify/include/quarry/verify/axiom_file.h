//===- axiom_file.h - Operator specifications and axioms ------*- C++ -*-===//
//
// The axiom language (docs/AXIOMS.md): a file declares which operators the
// axioms speak of and which of their attributes are integer parameters, then
// states axioms and lemmas as universally quantified equations:
//
//   op conv2d[s, pad, act](x, w)
//   op split[axis](x) -> 2
//   axiom conv_concat_weights: forall s p a x y z.
//       concat(1, conv2d(s, p, a, x, y), conv2d(s, p, a, x, z))
//     = conv2d(s, p, a, x, concat(0, y, z))
//     shapes x: [n, c, h, w], y: [c1, c, kh, kw], z: [c2, c, kh, kw]
//     values s in {[1,1], [2,2]}, p in {same, valid}, a in {none, relu},
//            n c h w c1 c2 in 1..3, kh kw in {1, 3}
//     if h >= kh and w >= kw or p = same
//
// `where` adds a shape precondition (dim(x, 1) = dim(y, 1) and ...) that the
// prover must assume; `shapes`, `values` and `if` give the small-shape
// domain on which the axiom can be checked numerically. `dims` statements
// give the prover the dimensions of operator results, so a precondition on
// an intermediate term becomes one on a rule's inputs:
//
//   dims relu: forall x i. dim(relu(x), i) = dim(x, i)
//   dims ewadd: forall x y i. dim(ewadd(x, y), i) = dim(x, i)
//     when dim(x, i) = dim(y, i)
//
// The prover's operators are total, so an equation must hold of every
// application, well-formed or not, that the axioms allow: one that names a
// single operand of a commutative operator (or of a constant, which stands
// for tensors of any shape) would make every tensor's dimensions equal.
// `when` restricts it to the applications whose operands agree.
// Parsing resolves
// every operator against its declaration and the declaration against the
// operator registry, so an undeclared operator, a wrong arity or an unknown
// attribute is reported with its position before anything is solved.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/error.h"
#include "quarry/core/op_registry.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace quarry::verify {

/// One operator as the axioms see it: the registry operator, the attributes
/// that are integer parameters (in argument order), the attributes that do
/// not change values, and how many tensor operands and results it has.
struct OpDecl {
  std::string name;
  OpKind kind = OpKind::Input;
  std::vector<int> params;  ///< schema indices, in argument order
  std::vector<int> ignored; ///< schema indices that never change values
  int tensor_arity = 0;
  int num_outputs = 1;
  SourcePos pos;

  int arity() const { return static_cast<int>(params.size()) + tensor_arity; }
};

/// Tensor, integer parameter, or dimension index (in `dims` statements).
enum class VarSort { Tensor, Int, Index };

/// A term of an axiom. Arguments of an Apply come parameters first, then
/// tensors, as in the declaration.
struct Term {
  enum class Kind { Var, IntLit, ListLit, Name, Apply };
  Kind kind = Kind::Var;
  std::string name;          ///< Var, Name (an enum value), Apply (op name)
  int64_t value = 0;         ///< IntLit
  std::vector<int64_t> list; ///< ListLit
  int decl = -1;             ///< Apply: index into AxiomFile::ops
  int output = 0;            ///< Apply: which result ("split.1")
  std::vector<Term> args;    ///< Apply
  SourcePos pos;
};

/// dim(var, dim) = dim(other_var, other_dim), a precondition atom.
struct DimAtom {
  std::string var;
  int dim = 0;
  std::string other_var;
  int other_dim = 0;
};

/// An integer expression or condition of a small-shape domain.
struct DomainExpr {
  enum class Kind { Int, Var, Binary, Not };
  Kind kind = Kind::Int;
  int64_t value = 0;
  std::string name;
  std::string op; ///< + - * / % = != < <= > >= and or
  std::vector<DomainExpr> args;
  SourcePos pos;
};

/// A value a domain variable may take: an integer or a list (strides).
using DomainValue = std::vector<int64_t>; ///< one element for an integer

/// Where an axiom is checked numerically: the shapes of its tensor
/// variables (and of constants, by operator name) as expressions over
/// dimension variables, the values each integer variable ranges over, and a
/// side condition.
struct AxiomDomain {
  std::map<std::string, std::vector<DomainExpr>> shapes;
  std::map<std::string, std::vector<DomainValue>> values;
  std::vector<std::string> value_order; ///< variables in declaration order
  std::unique_ptr<DomainExpr> condition;
  bool empty() const { return shapes.empty() && values.empty(); }
};

/// dim(tensor, index), with the index a literal or a bound variable.
struct DimRef {
  Term tensor;
  int64_t index = 0;
  std::string index_var; ///< set when the index is a variable
};

/// dim(a) = dim(*b), or dim(a) = value when b is absent: an equation that
/// an axiom's `shapes` clause states and typing its two sides does not
/// force (shape_conditions.h), so the prover may use the axiom only where
/// it holds. `a` and `b` name a tensor variable or a constant's
/// application as the axiom writes it.
struct DimCondition {
  DimRef a;
  std::optional<DimRef> b;
  int64_t value = 0;
};

struct Axiom {
  std::string name;
  bool is_lemma = false;
  std::vector<std::string> vars; ///< forall-bound, in order
  std::map<std::string, VarSort> sorts;
  Term lhs, rhs;
  std::vector<DimAtom> preconditions; ///< its `where`
  /// What its `shapes` clause states beyond typing (shape_conditions.h);
  /// the prover assumes these beside `preconditions`.
  std::vector<DimCondition> shape_conditions;
  std::shared_ptr<AxiomDomain> domain; ///< null when none is given
  SourcePos pos;
};

/// dim(result, i) = d1 + d2 + ... + constant [when a = b and ...].
struct DimEquation {
  DimRef result; ///< of an operator application
  std::vector<DimRef> sum;
  int64_t constant = 0;
  /// Dimension equalities of the operands that the equation needs.
  std::vector<std::pair<DimRef, DimRef>> when;
  SourcePos pos;
};

/// A `dims` statement: equations over the variables it binds, each true of
/// every well-formed application of its operator.
struct DimFact {
  std::string name;
  std::vector<std::string> vars; ///< forall-bound, in order
  std::map<std::string, VarSort> sorts;
  std::vector<DimEquation> equations;
  SourcePos pos;
};

struct AxiomFile {
  std::vector<OpDecl> ops;
  std::vector<Axiom> axioms;      ///< axioms and lemmas, in file order
  std::vector<DimFact> dim_facts; ///< in file order
  std::vector<std::string> files; ///< this file and every included one

  /// Index of the declaration of `name`, or -1.
  int find_op(std::string_view name) const;
  /// The declaration of registry operator `kind`, or nullptr.
  const OpDecl *decl_of(OpKind kind) const;
  const Axiom *find_axiom(std::string_view name) const;
};

/// Parses axiom text; `file` names it in errors and anchors includes.
AxiomFile parse_axioms(std::string_view text, const std::string &file);

/// Reads and parses a file and everything it includes (paths relative to
/// the including file; each file is read once).
AxiomFile read_axiom_file(const std::string &path);

/// The file without the named axioms (for ablation); throws on an unknown
/// name.
AxiomFile without_axioms(const AxiomFile &file,
                         const std::vector<std::string> &names);

/// A term in the axiom language's syntax, for messages and reports.
std::string print_term(const AxiomFile &file, const Term &t);

/// Adds the names of the variables in `t` (tensors and parameters) to `out`.
void collect_variables(const Term &t, std::set<std::string> &out);

/// Appends every application of operator `op` in `t` (outermost first).
void collect_applications(const Term &t, std::string_view op,
                          std::vector<Term> &out);

} // namespace quarry::verify
