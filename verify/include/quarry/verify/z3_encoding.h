//===- z3_encoding.h - Axioms and rule graphs as Z3 terms -----*- C++ -*-===//
//
// Tensors are an uninterpreted sort T, parameters are integers, and result
// k of an operator is an uninterpreted function Int^p x T^n -> T, named
// "<op>" or "<op>.<k>" for operators with several results. Parameters are
// the attributes the declaration lists, coded as integers (param_code);
// attributes neither listed nor ignored become part of the function's name
// when they differ from their defaults, so nodes that differ in them are
// never confused. concat of more than two operands nests to the left, as
// its concat boundaries do.
//
// dim(t, i) : T x Int -> Int is the i-th dimension of t; it appears in
// preconditions and in the `dims` facts, each equation of which becomes a
// quantified formula instantiated at every application of its operator
// (its left side is the pattern).
//
// An axiom's precondition is its `where` and the conditions its shapes
// clause states (shape_conditions.h). A constant whose shape the
// declaration ignores is one term for every shape; in a graph it has one,
// and its dimensions are facts (constant_dims), so a condition naming a
// constant (as many channels as x) is decided by the rule's own constants.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/graph.h"
#include "quarry/verify/axiom_file.h"

#include <z3++.h>

#include <map>
#include <string>

namespace quarry::verify {

/// The integer that stands for an attribute value in Z3 terms, as decimal
/// text: integers and enums are themselves; a list is "1" followed by each
/// value + 500000 in six digits (one integer per list, injective); an
/// absent value is -1.
std::string param_code(const AttrSpec &spec, const AttrValue &value);

/// How parameters are encoded: as integers (proofs), or as an
/// uninterpreted sort P whose literals are distinct constants (model
/// finding: with every sort uninterpreted, Z3's model finder can look for
/// finite models). Graph values (value()) need ParamSort::Int.
enum class ParamSort { Int, Uninterpreted };

/// Builds Z3 terms in one context. Not thread-safe (nor is the context).
class Encoder {
public:
  Encoder(z3::context &ctx, const AxiomFile &axioms,
          ParamSort params = ParamSort::Int);

  /// The axiom as a closed formula: forall vars. [pre =>] lhs = rhs.
  z3::expr axiom(const Axiom &a);

  /// Value `v` of graph `g`; its variables become constants of sort T named
  /// after them. Throws quarry::Error when an operator is not declared, or
  /// when two constants of one term have different shapes.
  z3::expr value(const Graph &g, ValueRef v);

  /// dim(c, i) = shape[i] for every shapeless constant c of the graphs
  /// encoded so far (true when none).
  z3::expr constant_dims() const;

  /// A term of axiom `a` with its variables free (constants named "?v"),
  /// for stating an axiom's negation with those constants as witnesses.
  z3::expr axiom_term(const Axiom &a, const Term &t) {
    return term(a.sorts, t);
  }

  /// The conjunction of a's `where` atoms over the same free constants
  /// (true when there are none).
  z3::expr axiom_precondition(const Axiom &a);

  /// The equations of `f`, each closed over the variables it uses.
  z3::expr dim_fact(const DimFact &f);
  /// Every `dims` statement of the file (true when there are none).
  z3::expr dim_facts();

  /// With ParamSort::Uninterpreted: the literals used so far are pairwise
  /// distinct (true when fewer than two).
  z3::expr distinct_literals();
  /// With ParamSort::Uninterpreted: the literal constants used so far.
  std::vector<z3::expr> literals() const;

  z3::expr tensor_var(const std::string &name);
  z3::expr dim(const z3::expr &t, int i);

  z3::context &ctx() { return ctx_; }

private:
  z3::func_decl function(const OpDecl &d, int output,
                         const std::string &suffix);
  using Sorts = std::map<std::string, VarSort>;
  z3::expr term(const Sorts &sorts, const Term &t);
  z3::expr bound_var(const Sorts &sorts, const std::string &name);
  z3::expr dim_ref(const Sorts &sorts, const DimRef &d);
  z3::expr literal(const std::string &code);
  void know_dims(const z3::expr &constant, const std::vector<int64_t> &shape,
                 const Node &n);

  z3::context &ctx_;
  const AxiomFile &file_;
  z3::sort tensor_;
  z3::sort param_;
  bool int_params_;
  std::map<std::string, z3::expr> literals_;
  z3::func_decl dim_;
  std::map<std::string, z3::func_decl> functions_;
  std::map<std::string, std::vector<int64_t>> constant_shapes_; ///< by term
  z3::expr_vector constant_dims_{ctx_};
};

} // namespace quarry::verify
