//===- numeric_check.h - Two graphs on the same random inputs -*- C++ -*-===//
//
// The cheap check before and after proofs: evaluate two graphs over the same
// variables exactly in GF(2^61-1) and in float. Used to test axioms on
// their small-shape domains and to refute wrong rules.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/graph.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace quarry::verify {

struct NumericComparison {
  bool shapes_equal = true;
  bool field_equal = true;
  double float_max_diff = 0;
  /// Float results agree up to rounding: |diff| <= 1e-3 * (1 + max |value|).
  bool float_close = true;

  /// Both domains disagree (or the shapes do): the graphs certainly differ.
  bool definitely_different() const {
    return !shapes_equal || (!field_equal && !float_close);
  }
};

/// Evaluates every output of `a` and `b`, whose variables must all have
/// shapes, on the same seeded inputs. Throws quarry::Error when a graph does
/// not evaluate or their output counts differ.
NumericComparison compare_numerically(const Graph &a, const Graph &b,
                                      uint64_t seed);

/// `g` rebuilt with the given variable shapes (shape inference runs again,
/// so an ill-typed choice throws quarry::Error).
Graph with_variable_shapes(const Graph &g,
                           const std::map<std::string, Shape> &shapes);

} // namespace quarry::verify
