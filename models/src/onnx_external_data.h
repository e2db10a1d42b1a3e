//===- onnx_external_data.h - Tensors kept in another file -----*- C++ -*-===//
//
// ONNX keeps a large model's weights outside the protobuf (which cannot
// pass 2 GiB): a tensor with data_location EXTERNAL names a file beside
// the model (`location`, relative to the model's folder) and where in it
// its raw bytes lie (`offset`, `length`). Import reads them into the
// tensors before anything else looks at them; export writes a model's
// large tensors to `MODEL.onnx.data` when the model would not fit one
// message, or when asked.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/file_io.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace quarry::onnx_io {

/// Calls `fn` on every tensor of `graph`: initializers, tensor attributes
/// (Constant's value) and those of every subgraph.
void for_each_tensor(onnx::GraphProto &graph,
                     const std::function<void(onnx::TensorProto &)> &fn);
/// The same, reading only.
void for_each_tensor(const onnx::GraphProto &graph,
                     const std::function<void(const onnx::TensorProto &)> &fn);

/// The bytes one value of ONNX element type `elem` takes in raw_data; 0
/// for a type without a fixed size (STRING) or one quarry does not know.
uint64_t raw_bytes_per_value(int32_t elem);

/// The number of values of `t`'s shape; throws quarry::Error naming the
/// tensor when a dimension is negative or the count overflows.
uint64_t value_count(const onnx::TensorProto &t);

/// Whether `t` keeps its data in an external file.
bool is_external(const onnx::TensorProto &t);

/// Reads every external tensor of `model` into its raw_data, as if it had
/// been written inline; `model_path` is the model file, whose folder the
/// locations are relative to. Throws quarry::Error (without position)
/// naming the tensor and the data file when a location is absolute or
/// leaves that folder, the file is missing or not a regular file, or its
/// bytes are too few or not the tensor's size.
void read_external_data(onnx::ModelProto &model, const std::string &model_path);

/// The data files `model`'s external tensors name (each once, as written).
std::vector<std::string> external_data_files(const onnx::ModelProto &model);

/// The least size of a tensor export writes to external data (ONNX's
/// own writer's default): smaller ones stay inline.
inline constexpr uint64_t kExternalAtLeast = 1024;

/// Appends the raw bytes of each tensor of `model` that holds at least
/// `min_bytes` of them to `data` (a new file named `location` beside the
/// model), in order, and points the tensor there. Returns the bytes moved.
uint64_t move_to_external(onnx::ModelProto &model, const std::string &location,
                          uint64_t min_bytes, AtomicFile &data);

} // namespace quarry::onnx_io
