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
};

} // namespace quarry
