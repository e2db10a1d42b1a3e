//===- model_file.h - Models on disk: .qg + weights, or .onnx ---*- C++ -*-===//
//
// A model saved by quarry is its text graph `NAME.qg` and, beside it,
// `NAME.qg.weights.pb`: an ONNX GraphProto that holds only initializers
// (one TensorProto per weight, float32). A .qg without the weights file is
// a graph whose weights are bound to seeded random values when evaluated.
// An imported model has a third file, `NAME.qg.kept.pb` (Model::kept_onnx:
// the nodes quarry keeps as they are, and its interface as declared).
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

/// Writes `m` to `path`: ONNX (export_onnx, with `opts`) when it ends in
/// ".onnx", else a .qg with its weights and kept-nodes files (save_model).
void write_model(const Model &m, const std::string &path, uint64_t seed = 1,
                 const OnnxExportOptions &opts = {});

/// Writes the model read from `input` (as `read`) to `path` unchanged: the
/// input's own bytes when both are ONNX files, so that an application that
/// feeds and reads it by name, opset, element type or metadata sees the
/// same model, with the external data files it names copied beside `path`
/// where that is another folder; `read` in the output's format otherwise
/// (write_model). `input` may be "" (a built-in network), and may be
/// `path` itself.
void write_model_unchanged(const std::string &input, const Model &read,
                           const std::string &path, uint64_t seed = 1);

/// Reads a model from `path`: ONNX when it ends in ".onnx", else a .qg
/// with its weights file when present.
Model load_graph_any(const std::string &path,
                     const OnnxImportOptions &opts = {});

} // namespace quarry
