//===- case_space.h - The sweep's cases of one axiom ----------*- C++ -*-===//
//
// An axiom's sweep domain: every dimension variable (a `values` variable
// used in its `shapes` that is not a parameter of the equation) ranges over
// the sweep sizes, every parameter over its listed values. The cases are the
// mixed-radix numbers over those choices, in declaration order, so case k of
// an axiom is the same on every machine and shards can split them by
// number. The `if` condition is applied per case (filtered cases are not
// part of the domain).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/verify/axiom_instance.h"

#include <cstdint>
#include <string>
#include <vector>

namespace quarry::validate_axioms {

class CaseSpace {
public:
  /// The space of `a` with dimension variables over `sizes`. An axiom
  /// without a domain has an empty space.
  CaseSpace(const verify::Axiom &a, const std::vector<int64_t> &sizes);

  uint64_t size() const { return size_; }
  /// Assignment number `k` (< size()).
  verify::Assignment at(uint64_t k) const;
  /// The variables that range over the sweep sizes.
  const std::vector<std::string> &dimension_vars() const { return dims_; }

private:
  std::vector<std::string> vars_;
  std::vector<std::vector<verify::DomainValue>> choices_;
  std::vector<std::string> dims_;
  uint64_t size_ = 0;
};

} // namespace quarry::validate_axioms
