//===- onnx_open_dims.h - Input dimensions a model leaves open --*- C++ -*-===//
//
// Exporters write a model whose batch, image size or sequence length is a
// symbolic dimension ("N", "height") or none at all; quarry imports it
// with those dimensions fixed (--input-shape), and what export writes then
// declares the values they were fixed at. An application that feeds the
// model other sizes needs them open again, which holds only where the
// written model computes at other values what the model computes: a
// Reshape quarry wrote with the fixed batch in its shape would not.
// These are the model-file halves of that: which dimensions are open, and
// a written model with chosen ones declared open again
// (staged/open_dims.h checks which hold).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/models/onnx.h"

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace quarry {

/// One dimension of a graph input that the model does not fix.
struct OpenDim {
  std::string input; ///< the graph input's name
  int axis = 0;
  /// Its symbolic name, or "input[axis]" where the model gives none: the
  /// dimensions of one name are one dimension.
  std::string name;
  bool named = false; ///< the model names it (dim_param)
};

/// The open dimensions of the graph inputs an application feeds in the
/// serialized model `model` (initializers left out), in declared order.
std::vector<OpenDim> open_input_dims(std::string_view model);

/// The names of `dims`, each once, in order of first use.
std::vector<std::string> open_dim_names(const std::vector<OpenDim> &dims);

/// `written` (serialized; a model imported from `original` with its open
/// dimensions fixed, then exported, so with `original`'s input and output
/// names) with the dimensions named in `open` declared on its inputs and
/// outputs as `original` declares them: the inputs' of those names, and
/// every output dimension `original` leaves open. Intermediate values lose
/// their declared shapes, which held at the fixed values only.
std::string declare_open_dims(std::string_view original,
                              std::string_view written,
                              const std::set<std::string> &open);

/// `fixed` (the options a model was imported with) with each open
/// dimension named in `values` at that value instead.
OnnxImportOptions with_open_dims(const OnnxImportOptions &fixed,
                                 const std::vector<OpenDim> &dims,
                                 const std::map<std::string, int64_t> &values);

} // namespace quarry
