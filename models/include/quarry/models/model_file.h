//===- model_file.h - Models on disk: .qg + weights, or .onnx ---*- C++ -*-===//
//
// A model saved by quarry is its text graph `NAME.qg` and, beside it,
// `NAME.qg.weights.pb`: an ONNX GraphProto that holds only initializers
// (one TensorProto per weight, float32). A .qg without the weights file is
// a graph whose weights are bound to seeded random values when evaluated.
// An imported model with nodes quarry keeps as they are (opaque operators)
// has a third file, `NAME.qg.kept.pb` (Model::kept_onnx).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/models/onnx.h"

namespace quarry {

/// The weights file that belongs to `qg_path`.
std::string weights_path(const std::string &qg_path);
/// The kept-nodes file that belongs to `qg_path`.
std::string kept_path(const std::string &qg_path);

/// Writes `m` as `qg_path`, its weights file and its kept-nodes file (each
/// atomically); removes no file, and writes no weights or kept-nodes file
/// when there is nothing to put in it.
void save_model(const Model &m, const std::string &qg_path);

/// Reads a model from `path`: ONNX when it ends in ".onnx", else a .qg
/// with its weights file when present.
Model load_graph_any(const std::string &path,
                     const OnnxImportOptions &opts = {});

} // namespace quarry
