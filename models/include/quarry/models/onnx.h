//===- onnx.h - ONNX import and export --------------------------*- C++ -*-===//
//
// Import reads an ONNX model (opsets 1 to 23) into a quarry Model: the
// algebra's operators wherever they express the ONNX operator exactly, the
// float-only operators (core/SEMANTICS.md) otherwise; initializers and
// Constant nodes become weights whose values land in the weight table.
// Export writes any quarry graph as an ONNX model that passes the ONNX
// checker: opset 14 (16 with GridSample, 17 with LayerNormalization), or
// the imported model's opset where that is later (past 17 in that opset's
// forms: onnx_late_opsets.h), and an imported model's interface as it was
// declared (input and output names, metadata).
// models/ONNX.md lists the mapping.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/model.h"
#include "quarry/models/tensor_file.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace quarry {

struct OnnxImportOptions {
  /// Fixes the dimensions of graph inputs (needed for dynamic ones).
  std::map<std::string, Shape, std::less<>> input_shapes;
  /// Fixes the values of graph inputs that are parameters rather than data
  /// (Resize scales, a sample rate): each becomes a constant, as if it were
  /// an initializer, so what depends on it folds (an If on it takes its
  /// branch).
  std::map<std::string, TensorFile, std::less<>> input_values;
};

/// "name=FILE" (a .pb or .npy tensor) or "name=NUMBER" (a scalar of the
/// input's element type) as the value of that input.
std::pair<std::string, TensorFile> parse_input_value(std::string_view text);

/// "name=1x3x224x224" as (name, shape); throws quarry::Error otherwise.
std::pair<std::string, Shape> parse_input_shape(std::string_view text);

/// Imports the serialized model `bytes`; `file` names it in errors, which
/// read "file: node 'name' (OpType): what went wrong".
Model import_onnx_bytes(std::string_view bytes, const std::string &file,
                        const OnnxImportOptions &opts = {});
Model import_onnx(const std::string &path, const OnnxImportOptions &opts = {});

/// The ONNX operator type of each node `m` keeps as it is (its live
/// opaque operators in graph order, then its untyped tail's nodes): what
/// no backend runs, which runs between the graph's stages (staged/).
std::vector<std::string> kept_operator_types(const Model &m);

/// Why no backend computes all of `m`'s outputs from its graph alone: a
/// node kept as ONNX has it (named with its operator and why it is kept),
/// or the model ends in an untyped tail (nodes after a value whose shape is
/// not fixed, kept as ONNX: onnx_kept.h), named by its first node; "" when
/// one can. Such a model runs in stages (staged/).
std::string unrunnable_reason(const Model &m);

/// How the interface of the serialized ONNX model `b` differs from `a`'s,
/// as an application that feeds and reads it sees it: the graph inputs it
/// feeds (not initializers) and the outputs, by position, each with its
/// name, element type and the dimensions both declare; the opset, the
/// metadata and the model's doc string. One line each ("input 0 is named
/// 'v_input', not 'input'"); empty when they agree.
std::vector<std::string> interface_differences(std::string_view a,
                                               std::string_view b);

/// How the operators of the serialized ONNX model `b`'s graph differ in
/// number from `a`'s (its nodes, not subgraphs'; Identity not counted,
/// since export names values without one where it can): one line per
/// operator ("Cast: 24, not 0"), by operator name; empty when they agree.
std::vector<std::string> operator_differences(std::string_view a,
                                              std::string_view b);

struct OnnxExportOptions {
  /// Writes each tensor of 1 kB or more to `PATH.data` beside the model
  /// (ONNX external data). A model past 2 GiB is always written so.
  bool external_data = false;
};

/// The serialized ONNX model of `m`, checked by the ONNX checker. Weights
/// without a value in the table get seeded random values (`seed`). Throws
/// quarry::Error when it would pass 2 GiB (export_onnx writes such a
/// model with external data).
std::string export_onnx_bytes(const Model &m, uint64_t seed = 1);
/// The model of export_onnx_bytes written atomically to `path`, and its
/// large tensors to `path` + ".data" when it would pass 2 GiB or `opts`
/// asks; the data file is complete before the model appears.
void export_onnx(const Model &m, const std::string &path, uint64_t seed = 1,
                 const OnnxExportOptions &opts = {});

} // namespace quarry
