//===- open_dims.h - Which open dimensions a rewritten model keeps -*- C++
//-*-===//
//
// A model imported with its open input dimensions fixed (--input-shape),
// rewritten and exported declares them at the values they were fixed at
// (onnx_open_dims.h). One may be declared open again where the written
// model computes what the original computes at its other values; that is
// checked here by running both at other values, which is evidence, not a
// proof: a rewrite that holds at two more values of a batch or an image
// size and fails at a third would have to depend on the value itself.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/models/onnx_open_dims.h"
#include "quarry/runtime/backend.h"

#include <string>
#include <string_view>
#include <vector>

namespace quarry::staged {

struct OpenDims {
  std::string model;              ///< the written model, `kept` declared open
  std::vector<std::string> kept;  ///< declared open again
  std::vector<std::string> fixed; ///< left at the value they were fixed at
};

/// Which of `original`'s open input dimensions `written` (serialized ONNX,
/// imported from `original` with `fixed_at` and exported) declares open
/// again: those at whose other values (the fixed value plus one, and half
/// of it, or plus two where that is below 4) the written model imports and
/// computes `original`'s outputs of the same shapes within `tolerance`
/// relative, run on `backend` from inputs seeded with `seed`, wherever
/// `original` itself imports and runs there (at least one such value).
/// Tried all together, then one at a time, then those that held alone
/// together. `file` names the original in errors.
OpenDims keep_open_dims(std::string_view original, std::string_view written,
                        const OnnxImportOptions &fixed_at,
                        runtime::Backend &backend, uint64_t seed,
                        double tolerance, const std::string &file);

} // namespace quarry::staged
