//===- model_file.cc - Models on disk: .qg + weights, or .onnx ------------===//
#include "quarry/models/model_file.h"

#include "onnx_kept.h"
#include "onnx_tensor.h"
#include "quarry/core/file_io.h"
#include "quarry/core/text.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <filesystem>

namespace quarry {

std::string weights_path(const std::string &qg_path) {
  return qg_path + ".weights.pb";
}

std::string kept_path(const std::string &qg_path) {
  return qg_path + ".kept.pb";
}

void save_model(const Model &m, const std::string &qg_path) {
  if (!m.kept_onnx.empty())
    write_file_atomic(kept_path(qg_path), m.kept_onnx);
  if (!m.weights.empty()) {
    // A GraphProto, written a field at a time as its serialization orders
    // them (name, then each initializer), so only one tensor is encoded
    // at once: a whole message and its bytes beside the weights tripled a
    // large model's memory here.
    AtomicFile out(weights_path(qg_path));
    onnx::GraphProto head;
    head.set_name("quarry weights");
    out.append(head.SerializeAsString());
    for (const auto &[name, t] : m.weights) {
      const onnx::TensorProto tensor = onnx_io::encode_tensor(name, t);
      std::string field;
      {
        google::protobuf::io::StringOutputStream sink(&field);
        google::protobuf::io::CodedOutputStream coded(&sink);
        coded.WriteTag((onnx::GraphProto::kInitializerFieldNumber << 3) |
                       2); // length-delimited
        coded.WriteVarint32(static_cast<uint32_t>(tensor.ByteSizeLong()));
        tensor.SerializeWithCachedSizes(&coded);
      }
      out.append(field);
    }
    out.commit();
  }
  write_file_atomic(qg_path, print_graph(m.graph));
}

namespace {
bool ends_with(const std::string &s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
} // namespace

void write_model(const Model &m, const std::string &path, uint64_t seed) {
  if (ends_with(path, ".onnx"))
    export_onnx(m, path, seed);
  else
    save_model(m, path);
}

void write_model_unchanged(const std::string &input, const Model &read,
                           const std::string &path, uint64_t seed) {
  if (!input.empty() && ends_with(input, ".onnx") && ends_with(path, ".onnx"))
    write_file_atomic(path, read_file_bytes(input));
  else
    write_model(read, path, seed);
}

Model load_graph_any(const std::string &path, const OnnxImportOptions &opts) {
  if (ends_with(path, ".onnx"))
    return import_onnx(path, opts);
  Model m{read_graph_file(path), {}, {}};
  const std::string kpath = kept_path(path);
  if (std::filesystem::exists(kpath)) {
    m.kept_onnx = read_file_bytes(kpath);
    onnx_io::parse_kept(m.kept_onnx, kpath); // refuse a corrupt file now
  }
  const std::string wpath = weights_path(path);
  if (!std::filesystem::exists(wpath))
    return m;
  const std::string bytes = read_file_bytes(wpath);
  onnx::GraphProto weights;
  if (!weights.ParseFromString(bytes))
    throw Error(SourcePos{wpath, 0, 0},
                "not a quarry weights file (truncated or not protobuf)");
  for (const auto &t : weights.initializer()) {
    try {
      m.weights.emplace(t.name(), onnx_io::decode_tensor(t).as_float());
    } catch (const Error &e) {
      throw Error(SourcePos{wpath, 0, 0}, e.what());
    }
  }
  return m;
}

} // namespace quarry
