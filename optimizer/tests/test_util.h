//===- test_util.h - Shared helpers of the optimizer tests -----*- C++ -*-===//
#pragma once

#include "quarry/core/text.h"
#include "quarry/optimizer/optimize.h"
#include "quarry/rulepack/rule_pack.h"

#include <gtest/gtest.h>

#include <string>

namespace quarry::opt::test {

/// A proved rule from the text of its two patterns.
inline Rule make_rule(const std::string &name, const std::string &source,
                      const std::string &target) {
  Rule r = parse_rule(name, source, target);
  r.provenance.status = ProofStatus::Proved;
  r.provenance.origin = "test";
  return r;
}

/// Largest relative error of `after` against `before` on the reference
/// backend, same seeded inputs and weights.
inline double error_between(const Graph &before, const Graph &after) {
  return output_error(Model{before, {}}, Model{after, {}}, 7);
}

inline constexpr double kTolerance = 1e-4;

} // namespace quarry::opt::test
