//===- finite_model.h - Finite countermodels by grounding -----*- C++ -*-===//
//
// Z3's model finder rarely settles quantified axioms over an uninterpreted
// tensor sort within seconds. Small models are found directly instead: fix
// the tensors to `size` elements and the parameters to the literals the
// axioms mention plus one element standing for every other value, add every
// instance of every premise over those elements (ground formulas only), and
// ask Z3 for a model where the goal's two sides differ.
//
// Such a model is a genuine countermodel: the premises hold for all tensors
// because there are no others, and the formulas never compare parameters
// except through literals, so the extra parameter element can be copied to
// stand for each remaining integer.
//
// Premises that make an operator injective on two tensor operands have no
// such model with two or more tensors; callers check injectivity.h first.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/verify/axiom_file.h"

#include <optional>
#include <string>
#include <vector>

namespace quarry::validate_axioms {

/// A description of a model of the premises where the goal fails (goal
/// null: where two tensors differ), with `size` tensors; nullopt when there
/// is none of that size or Z3 gives no answer within `timeout_s` (as Z3
/// resources, verify::resources_for).
std::optional<std::string>
find_finite_model(const verify::AxiomFile &file,
                  const std::vector<size_t> &premises,
                  const verify::Axiom *goal, int size, double timeout_s);

} // namespace quarry::validate_axioms
