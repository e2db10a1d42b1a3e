//===- onnx_import_file.cc - An ONNX file read in, within memory ----------===//
//
// Before import sees a model: a file past protobuf's 2 GiB is refused
// unread, the model is sized against what the process may allocate, and
// the tensors it keeps in external data are read in, and sequences of
// known tensors become tensor nodes (onnx_sequences.h).
//
//===----------------------------------------------------------------------===//
#include "onnx_external_data.h"
#include "onnx_importer.h"
#include "onnx_sequences.h"

#include "quarry/core/file_io.h"
#include "quarry/core/memory_limit.h"

#include <filesystem>

namespace quarry {

namespace {

/// Refuses `model` before its tensors are read when that would need more
/// memory than the process may allocate: an external tensor's bytes are
/// read in, each tensor becomes a float32 weight, and one at a time (the
/// largest, at worst) is decoded as a Constant (a double and an int64 per
/// value) to fold it or to write it out.
void refuse_too_large(const onnx::ModelProto &model, const std::string &file) {
  uint64_t total = 0, largest = 0;
  const onnx::TensorProto *biggest = nullptr;
  try {
    onnx_io::for_each_tensor(model.graph(), [&](const onnx::TensorProto &t) {
      const uint64_t n = onnx_io::value_count(t);
      const uint64_t raw = onnx_io::is_external(t)
                               ? n * onnx_io::raw_bytes_per_value(t.data_type())
                               : 0;
      const uint64_t bytes = n * sizeof(float) + raw;
      total += bytes;
      if (bytes > largest) {
        largest = bytes;
        biggest = &t;
      }
    });
  } catch (const Error &e) {
    throw Error(SourcePos{file, 0, 0}, e.what());
  }
  if (!biggest)
    return;
  total += onnx_io::value_count(*biggest) * (sizeof(double) + sizeof(int64_t));
  std::string shape;
  for (int64_t d : biggest->dims())
    shape += (shape.empty() ? "" : "x") + std::to_string(d);
  refuse_past(allocatable_memory(), total,
              SourcePos{file, 0, 0}.str() +
                  ": importing its weights (the largest, '" + biggest->name() +
                  "' [" + shape + "], " + byte_size_text(largest) + ")");
}

Model import_parsed(onnx::ModelProto &model, const std::string &file,
                    const OnnxImportOptions &opts) {
  refuse_too_large(model, file);
  try {
    onnx_io::read_external_data(model, file);
  } catch (const Error &e) {
    throw Error(SourcePos{file, 0, 0}, e.what());
  }
  onnx_io::tensors_for_sequences(model);
  return onnx_io::Importer(model, file, opts).run();
}

void refuse_past_one_message(uint64_t bytes, const std::string &file) {
  if (bytes >= onnx_io::kMaxMessageBytes)
    throw Error(SourcePos{file, 0, 0},
                "the file holds " + byte_size_text(bytes) +
                    ", more than one protobuf message can (2 GiB); a model "
                    "this large keeps its weights in ONNX external data");
}

void parse_model(onnx::ModelProto &model, std::string_view bytes,
                 const std::string &file) {
  refuse_past_one_message(bytes.size(), file);
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    throw Error(SourcePos{file, 0, 0},
                "not a valid ONNX model (truncated or not protobuf)");
}

} // namespace

Model import_onnx_bytes(std::string_view bytes, const std::string &file,
                        const OnnxImportOptions &opts) {
  onnx::ModelProto model;
  parse_model(model, bytes, file);
  return import_parsed(model, file, opts);
}

Model import_onnx(const std::string &path, const OnnxImportOptions &opts) {
  onnx::ModelProto model;
  {
    std::error_code ec;
    const uintmax_t size = std::filesystem::file_size(path, ec);
    if (!ec)
      refuse_past_one_message(size, path); // before reading it
    const std::string bytes = read_file_bytes(path);
    parse_model(model, bytes, path); // the bytes go before the weights decode
  }
  return import_parsed(model, path, opts);
}

} // namespace quarry
