//===- op_config.h - One operator configuration, as costed -----*- C++ -*-===//
//
// An operator with its attributes and operand shapes, and which operands are
// weights (static, laid out at prepare time and not part of the timed run).
// Its key() is the text the cost cache stores, e.g.
//   conv2d[s=1,1 pad=same act=relu](x[1,512,28,28],w[512,16,3,3])
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/graph.h"

#include <string>
#include <vector>

namespace quarry::runtime {

struct OpConfig {
  OpKind kind = OpKind::Relu;
  Attrs attrs;
  std::vector<Shape> inputs;
  std::vector<bool> weights; ///< per operand: a weight rather than an input

  /// Canonical text: every attribute that has a value, operands as
  /// x[shape] (input) or w[shape] (weight).
  std::string key() const;
};

/// Whether `c` names how its operator is computed (a conv2d's `alg`,
/// Backend::implementations, or its `layout`): measured with the reorders
/// it brings.
bool names_implementation(const OpConfig &c);

/// The configuration of operator node `id` of `g`, whose types are known.
/// Operands computed from weights only count as weights.
OpConfig op_config(const Graph &g, int32_t id);
/// The same with Graph::static_nodes() already computed (configurations
/// of many nodes of one graph).
OpConfig op_config(const Graph &g, int32_t id,
                   const std::vector<bool> &is_static);

/// A 64-bit hash of node `id`'s configuration: its operator, attributes,
/// operand shapes and which operands are static, and its results' shapes
/// (which fix what attributes leave open, such as a split's sizes). Equal
/// configurations hash alike; computed without building an OpConfig, for
/// costing many graphs that differ in a few nodes.
uint64_t config_hash(const Graph &g, int32_t id,
                     const std::vector<bool> &is_static);
/// The same of a node not in a built graph: its operands' types (nullptr
/// when unknown) and whether each is static, in operand order.
uint64_t config_hash(const Node &n,
                     const std::vector<const TensorType *> &operand_types,
                     const std::vector<bool> &operand_static);

/// A graph of just this operator: operands are variables in0, in1, ...
/// (inputs or weights as configured), its results the graph's outputs.
Graph single_op_graph(const OpConfig &c);

} // namespace quarry::runtime
