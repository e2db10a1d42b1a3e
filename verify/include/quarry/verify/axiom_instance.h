//===- axiom_instance.h - Axioms on concrete small shapes -----*- C++ -*-===//
//
// An axiom's small-shape domain (axiom_file.h: shapes, values, if) names
// finitely many instances: one value per domain variable. An instance that
// satisfies the condition becomes two concrete graphs (the two sides, with
// shaped variables) that any Domain can evaluate. Axiom validation and the
// numeric tests of axiom files are built on this.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/graph.h"
#include "quarry/verify/axiom_file.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace quarry::verify {

/// One value for every variable of an axiom's domain.
using Assignment = std::map<std::string, DomainValue>;

struct AxiomInstance {
  Assignment values;
  Graph lhs, rhs; ///< one output each; variables shaped

  /// "s=[1,1] p=0 n=2 ..." for messages.
  std::string str() const;
};

/// Evaluates a domain expression (an integer; conditions give 0 or 1).
int64_t eval_domain_expr(const DomainExpr &e, const Assignment &values);

/// Whether `values` satisfies the axiom's condition (true without one).
bool condition_holds(const Axiom &a, const Assignment &values);

/// A dimension of a tensor variable or constant (by its name in the shapes
/// clause): (name, dimension).
using ShapePosition = std::pair<std::string, int>;
/// Dimensions given other values than the shapes clause gives them.
using ShapeOverrides = std::map<ShapePosition, int64_t>;

/// The two sides under `values` (and `overrides`); throws quarry::Error
/// when they do not type-check (say, a kernel larger than a valid-padded
/// input).
AxiomInstance instantiate(const AxiomFile &file, const Axiom &a,
                          const Assignment &values,
                          const ShapeOverrides &overrides = {});

/// Number of assignments of the domain (before the condition).
uint64_t domain_size(const Axiom &a);

/// Up to `count` distinct random instances that satisfy the condition and
/// type-check, drawn with `seed` in at most `max_tries` attempts. Empty
/// when the axiom has no domain.
std::vector<AxiomInstance> sample_instances(const AxiomFile &file,
                                            const Axiom &a, uint64_t seed,
                                            int count, int max_tries = 4000);

} // namespace quarry::verify
