//===- case_space.h - The sweep's cases of one axiom ----------*- C++ -*-===//
//
// An axiom's sweep domain is where the prover may apply it: every dimension
// variable (a `values` variable used in its `shapes` that is not a
// parameter of the equation) ranges over the sweep sizes, every parameter
// over its listed values, and the `if` condition, which the prover cannot
// see, filters nothing. A case outside the axiom's `where` and shape
// conditions (verify/shape_conditions.h) is filtered, as is one that does
// not type-check.
//
// The shapes clause ties dimensions together (one variable written twice,
// a number). Typing forces most ties; one it does not force is a shape
// condition the prover assumes. To try the ties as the prover does, the
// sweep also unties each tied dimension in turn, giving it every sweep
// size at up to 256 cases (spread evenly) whose dimensions take the two
// smallest sizes: a tie typing does not force, and no condition states,
// then shows as a case that type-checks where the prover would use the
// axiom.
//
// The cases are numbered: first the mixed-radix numbers over the choices,
// in declaration order, then the untied ones (small case, tied dimension,
// size), so case k of an axiom is the same on every machine and shards can
// split them by number.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/verify/axiom_instance.h"
#include "quarry/verify/shape_conditions.h"

#include <cstdint>
#include <string>
#include <vector>

namespace quarry::validate_axioms {

/// One case: an assignment, and a dimension set apart from it (none for
/// the plain cases).
struct Case {
  verify::Assignment values;
  verify::ShapeOverrides untied;
};

class CaseSpace {
public:
  /// The space of `a` with dimension variables over `sizes`. An axiom
  /// without a domain has an empty space.
  CaseSpace(const verify::Axiom &a, const std::vector<int64_t> &sizes);

  uint64_t size() const { return plain_ + untied_; }
  /// Case number `k` (< size()).
  Case at(uint64_t k) const;
  /// The variables that range over the sweep sizes.
  const std::vector<std::string> &dimension_vars() const { return dims_; }
  /// How many cases untie a dimension.
  uint64_t untied_cases() const { return untied_; }

private:
  static verify::Assignment
  pick(const std::vector<std::string> &vars,
       const std::vector<std::vector<verify::DomainValue>> &choices,
       uint64_t k);

  std::vector<std::string> vars_;
  std::vector<std::vector<verify::DomainValue>> choices_, small_choices_;
  std::vector<std::string> dims_;
  std::vector<verify::TiedPosition> tied_;
  std::vector<int64_t> sizes_;
  uint64_t plain_ = 0, small_ = 0, bases_ = 0, untied_ = 0;
};

} // namespace quarry::validate_axioms
