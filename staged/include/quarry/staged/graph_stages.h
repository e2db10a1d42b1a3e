//===- graph_stages.h - A graph cut at its uninterpreted operators -*- C++
//-*-===//
//
// A backend runs a graph whole, and cannot run an opaque operator (a node
// an imported model keeps as ONNX). Cutting the graph where a value of one
// is read gives stages a backend can plan, fuse and run, with the opaque
// operators run between them: stage k holds the operators that read
// nothing computed by an opaque operator of stage k or later.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/graph.h"

#include <vector>

namespace quarry::staged {

struct GraphStage {
  /// The stage's operators, as a graph of their own. Its variables are the
  /// original graph's inputs and weights that they read (same names), and
  /// one input per value they read from an earlier stage or an opaque
  /// operator (`reads`).
  Graph graph;
  /// The input variables of `graph` standing for values computed before
  /// it: their names, and the values of the original graph they are.
  std::vector<std::string> read_names;
  std::vector<ValueRef> reads;
  /// The value of the original graph each output of `graph` is, in order:
  /// what later stages, opaque operators or the graph's outputs read.
  std::vector<ValueRef> computes;
  /// The opaque operators (node ids) that run after this stage: all they
  /// read is computed once it has run.
  std::vector<int32_t> then_opaque;
};

/// `g`'s live nodes in stages, in the order they run. A graph without an
/// opaque operator is one stage of all of it.
std::vector<GraphStage> split_at_opaque(const Graph &g);

} // namespace quarry::staged
