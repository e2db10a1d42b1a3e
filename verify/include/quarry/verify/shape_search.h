//===- shape_search.h - Variable shapes that type-check a rule -*- C++ -*-===//
//
// A rule's patterns carry no variable shapes, but its constants do
// (const_iconv[shape=4,4,3,3]), and its operators tie its variables'
// shapes together: a matmul's inner dimensions, a concat's other axes, a
// kernel's channels. One shape for every variable, or a random mix, rarely
// fits a rule that needs [2,4] beside [4,2], or a 4-channel image beside a
// constant of shape [4,4,3,3]. This search assigns each variable a shape
// from a small pool (the refutation candidates, plus shapes taken from the
// rule's constants) when an operator first needs it, and infers each
// operator's type at once, so a choice that cannot type-check is dropped
// before any other variable is tried.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/rulepack/rule_pack.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace quarry::verify {

struct ShapeSearchOptions {
  size_t max_found = 2;       ///< assignments returned at most
  size_t max_inferred = 4000; ///< operator type inferences at most
};

/// Shapes for the rule's variables under which both sides type-check and
/// give outputs of equal shapes, in the search's order (the pool's order,
/// variables by first use); at most `max_found`, fewer when the budget runs
/// out. Variables in `scalars` are rank 0. `pool` is tried for the others,
/// followed by shapes derived from the rule's constants.
std::vector<std::map<std::string, Shape>>
search_shapes(const Rule &rule, const std::vector<Shape> &pool,
              const std::set<std::string> &scalars,
              const ShapeSearchOptions &opts = {});

} // namespace quarry::verify
