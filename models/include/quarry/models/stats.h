//===- stats.h - Operator counts, parameters and FLOPs ----------*- C++ -*-===//
#pragma once

#include "quarry/core/graph.h"

#include <map>
#include <string>

namespace quarry {

struct GraphStats {
  /// Operator nodes by operator name (variables are not counted).
  std::map<std::string, int> op_counts;
  /// Elements of all weights.
  int64_t parameters = 0;
  /// Floating-point operations of one evaluation: 2 per multiply-add in
  /// conv2d, conv_transpose and matmul, one per output element elsewhere.
  int64_t flops = 0;
};

/// Statistics of the nodes that reach an output; every type must be known.
GraphStats graph_stats(const Graph &g);

} // namespace quarry
