//===- model.h - A graph with the values of its weights --------*- C++ -*-===//
#pragma once

#include "quarry/core/graph.h"
#include "quarry/core/weights.h"

namespace quarry {

/// What builders and the ONNX importer produce: the computation and the
/// values of its weights (inputs stay unbound).
struct Model {
  Graph graph;
  WeightTable weights;
  /// What an imported model holds that quarry keeps without interpreting:
  /// the original nodes of the graph's opaque operators (ops/opaque.h, by
  /// id), the constants they read, the element types of integer graph
  /// inputs and the opsets all of it was written for, as a serialized ONNX
  /// ModelProto (models/src/onnx_kept.h). Empty when there is none; passes
  /// through every rewrite unchanged.
  std::string kept_onnx = {};
};

} // namespace quarry
