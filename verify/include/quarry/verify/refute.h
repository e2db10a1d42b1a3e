//===- refute.h - Counterexamples for wrong rules -------------*- C++ -*-===//
//
// Rule patterns carry no shapes, so a counterexample needs shapes that make
// both sides type-check. A few small shape choices are tried (the same shape
// for every variable, a few found by a search that type-checks as it goes,
// then seeded random mixes, scalars where scalar_mul needs them); the rule
// is refuted only on a definite difference: output shapes differ, or both
// the exact field and float evaluations differ.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/rulepack/rule_pack.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace quarry::verify {

/// The shape choices tried for `rule`'s variables, in order: every
/// variable the same small shape; then up to two found by search_shapes()
/// that type-check (shape_search.h); then `random_tries` seeded mixes (rank
/// 0 where scalar_mul needs a scalar). Empty
/// when a side holds a constant whose shape its user cannot fix. A choice may
/// not type-check.
std::vector<std::map<std::string, Shape>>
shape_choices(const Rule &rule, uint64_t seed, int random_tries);

/// "x1:[2,2] x2:[2,3]".
std::string describe_shapes(const std::map<std::string, Shape> &shapes);

struct Counterexample {
  /// "x1:[2,2] x2:[2,2]: values differ in the field and in float ..."
  std::string description;
  /// Both sides give outputs of the same shapes that differ; otherwise the
  /// output shapes differ (and the rule may hold wherever they agree).
  bool values_differ = false;
  std::map<std::string, Shape> shapes; ///< of the rule's variables
};

/// Which variable shapes a caller wants a counterexample at.
using ShapeFilter =
    std::function<bool(const std::map<std::string, Shape> &shapes)>;

/// A counterexample, or nullopt when none was found. One whose values
/// differ at shapes `wanted` accepts (any, when it is empty) is returned at
/// once; otherwise one whose values differ elsewhere, then one whose output
/// shapes differ.
std::optional<Counterexample>
find_counterexample(const Rule &rule, uint64_t seed, int random_tries = 48,
                    const ShapeFilter &wanted = {});

} // namespace quarry::verify
