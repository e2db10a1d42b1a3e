//===- splice.h - Replacing values of a graph by a new subgraph -*- C++ -*-===//
//
// Every rewrite the optimizer makes (a rule, a fusion, constant folding) is
// one splice: a pattern graph is instantiated inside a host graph, its
// variables bound to host values, and host values are replaced by the
// pattern's outputs. Nodes nobody uses any more disappear, while nodes
// still used elsewhere (another consumer of a matched intermediate tensor)
// stay. Shapes are inferred again, which checks the rewrite's shape
// conditions. RewriteView (rewrite_view.h) tells all of this without
// making the graph, and makes it with build().
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/graph.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace quarry::rewrite {

struct Splice {
  /// Variables bound by name; the pattern's other variables become new
  /// variables of the host with the shape given in `new_variables`.
  const Graph *pattern = nullptr;
  std::map<std::string, ValueRef, std::less<>> bindings;
  std::map<std::string, Shape, std::less<>> new_variables;
  /// Host values replaced by pattern.outputs()[i], in order.
  std::vector<ValueRef> replaced;
};

/// A splice that owns its pattern: a rewrite made up for one place (the
/// hand-written fusions build a pattern per match).
struct OwnedSplice {
  std::shared_ptr<const Graph> pattern;
  Splice splice; ///< splice.pattern is pattern.get()
};

/// The host with the splice made (a RewriteView's build()), or nullopt when
/// the result would have a cycle (a bound value depends on a replaced one),
/// a shape error, a replacement whose shape differs from the value it
/// replaces, or a constant whose shape cannot be told from its use. Every
/// `input` variable of the host is kept, in order, even when unused.
std::optional<Graph> splice(const Graph &host, const Splice &s);

} // namespace quarry::rewrite
