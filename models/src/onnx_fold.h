//===- onnx_fold.h - ONNX operators evaluated while importing ---*- C++ -*-===//
//
// Exported models compute reshape targets, slice bounds and masks from the
// input's shape at run time (Shape -> Gather -> Unsqueeze -> Concat ->
// Reshape). Once the inputs' shapes are fixed every such value is a
// constant, so the importer evaluates these operators instead of importing
// them: what reaches the graph is the algebra, with the shapes folded in.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "onnx_importer.h"

namespace quarry::onnx_io {

/// When the importer's current node's outputs are known now: every input is
/// a constant (or, for Shape and Size, only the input's shape is read).
/// The shape arithmetic operators fold by their own rules, in int64 where
/// their operands are integers; any other operator quarry imports folds by
/// the reference evaluation of what its handler builds (integers where
/// float32 holds them exactly). Sets the outputs as constants and returns
/// true; returns false and leaves everything as it was otherwise. Errors
/// (an index out of range, shapes that do not broadcast) name the node.
bool fold_node(Importer &m);

/// The ONNX operators fold_node() evaluates by their own rules (for docs
/// and tests).
std::vector<std::string> foldable_operators();

} // namespace quarry::onnx_io
