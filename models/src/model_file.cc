//===- model_file.cc - Models on disk: .qg + weights, or .onnx ------------===//
#include "quarry/models/model_file.h"

#include "onnx_external_data.h"
#include "onnx_kept.h"
#include "onnx_tensor.h"
#include "quarry/core/file_io.h"
#include "quarry/core/memory_limit.h"
#include "quarry/core/text.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
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
      // Each tensor is one length-delimited field, which protobuf limits
      // to 2 GiB; the file as a whole is read a field at a time and may
      // be larger.
      if (t.data.size() * sizeof(float) >= onnx_io::kMaxMessageBytes)
        throw Error("weight '" + name + "' " + t.shape.str() + " holds " +
                    byte_size_text(t.data.size() * sizeof(float)) +
                    ", more than a quarry weights file holds in one tensor "
                    "(2 GiB); write the model as .onnx, whose large tensors "
                    "go to external data");
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
  // An imported model binds each value its ONNX name (onnx_kept.h), so
  // none is nested into its user, where it would lose it.
  PrintOptions print;
  print.inline_single_use = m.kept_onnx.empty();
  write_file_atomic(qg_path, print_graph(m.graph, print));
}

namespace {

/// Reads the weights file at `path` a tensor at a time (the whole may pass
/// protobuf's 2 GiB), refusing it first when its tensors would not fit the
/// memory this process may allocate.
void read_weights_file(const std::string &path, WeightTable &weights) {
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (!ec) // float32 raw data: about the file's size again as weights
    refuse_past(allocatable_memory(), size,
                SourcePos{path, 0, 0}.str() + ": reading the weights");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    throw Error(path + ": cannot open: " + std::strerror(errno));
  google::protobuf::io::FileInputStream file(fd);
  file.SetCloseOnDelete(true);
  auto bad = [&](const std::string &what) {
    return Error(SourcePos{path, 0, 0}, what);
  };
  int index = 0;
  for (;;) {
    // A fresh reader per field: each one's byte limit is protobuf's 2 GiB.
    google::protobuf::io::CodedInputStream coded(&file);
    const uint64_t at = static_cast<uint64_t>(file.ByteCount());
    const uint32_t tag = coded.ReadTag();
    if (tag == 0) {
      if (file.GetErrno() != 0)
        throw bad(std::string("read failed: ") +
                  std::strerror(file.GetErrno()));
      if (coded.ConsumedEntireMessage() || at == size)
        return;
      throw bad("not a quarry weights file (a field's tag at byte " +
                std::to_string(at) + " is unreadable)");
    }
    if (tag != ((onnx::GraphProto::kInitializerFieldNumber << 3) | 2)) {
      // The head (the graph's name) and any field a later writer adds.
      if (!google::protobuf::internal::WireFormatLite::SkipField(&coded, tag))
        throw bad("not a quarry weights file (a field at byte " +
                  std::to_string(at) + " is cut short)");
      continue;
    }
    uint32_t length = 0;
    onnx::TensorProto t;
    if (!coded.ReadVarint32(&length) || length > INT_MAX)
      throw bad("weight #" + std::to_string(index) + " at byte " +
                std::to_string(at) + " is cut short (truncated?)");
    const auto limit = coded.PushLimit(static_cast<int>(length));
    if (!t.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage())
      throw bad("weight #" + std::to_string(index) + " at byte " +
                std::to_string(at) + " (" + std::to_string(length) +
                " bytes) is cut short or corrupt (truncated?)");
    coded.PopLimit(limit);
    try {
      weights.emplace(t.name(), onnx_io::decode_tensor(t).as_float());
    } catch (const Error &e) {
      throw bad(e.what());
    }
    ++index;
  }
}

bool ends_with(const std::string &s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
} // namespace

void write_model(const Model &m, const std::string &path, uint64_t seed,
                 const OnnxExportOptions &opts) {
  if (ends_with(path, ".onnx"))
    export_onnx(m, path, seed, opts);
  else
    save_model(m, path);
}

void write_model_unchanged(const std::string &input, const Model &read,
                           const std::string &path, uint64_t seed) {
  if (input.empty() || !ends_with(input, ".onnx") || !ends_with(path, ".onnx"))
    return write_model(read, path, seed);
  const std::string bytes = read_file_bytes(input);
  onnx::ModelProto model;
  if (model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    // Its data files first, so the model never points at a missing one.
    namespace fs = std::filesystem;
    const fs::path from = fs::path(input).parent_path();
    const fs::path to = fs::path(path).parent_path();
    for (const std::string &location : onnx_io::external_data_files(model)) {
      std::error_code ec;
      if (fs::equivalent(from / location, to / location, ec))
        continue; // the same folder: the file is already there
      fs::create_directories((to / location).parent_path(), ec);
      copy_file_atomic(from / location, to / location);
    }
  }
  write_file_atomic(path, bytes);
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
  read_weights_file(wpath, m.weights);
  return m;
}

} // namespace quarry
