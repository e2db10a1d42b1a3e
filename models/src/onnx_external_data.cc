//===- onnx_external_data.cc - Tensors kept in another file ---------------===//
#include "onnx_external_data.h"

#include "quarry/core/error.h"

#include <filesystem>
#include <fstream>
#include <limits>
#include <set>

namespace quarry::onnx_io {

namespace fs = std::filesystem;

void for_each_tensor(onnx::GraphProto &graph,
                     const std::function<void(onnx::TensorProto &)> &fn) {
  for (auto &t : *graph.mutable_initializer())
    fn(t);
  for (auto &node : *graph.mutable_node())
    for (auto &a : *node.mutable_attribute()) {
      if (a.has_t())
        fn(*a.mutable_t());
      for (auto &t : *a.mutable_tensors())
        fn(t);
      if (a.has_g())
        for_each_tensor(*a.mutable_g(), fn);
      for (auto &g : *a.mutable_graphs())
        for_each_tensor(g, fn);
    }
}

void for_each_tensor(const onnx::GraphProto &graph,
                     const std::function<void(const onnx::TensorProto &)> &fn) {
  // One walk for both: this one changes nothing through it.
  for_each_tensor(const_cast<onnx::GraphProto &>(graph),
                  [&](onnx::TensorProto &t) { fn(t); });
}

uint64_t raw_bytes_per_value(int32_t elem) {
  using TP = onnx::TensorProto;
  switch (elem) {
  case TP::BOOL:
  case TP::INT8:
  case TP::UINT8:
    return 1;
  case TP::INT16:
  case TP::UINT16:
  case TP::FLOAT16:
  case TP::BFLOAT16:
    return 2;
  case TP::INT32:
  case TP::UINT32:
  case TP::FLOAT:
    return 4;
  case TP::INT64:
  case TP::UINT64:
  case TP::DOUBLE:
  case TP::COMPLEX64:
    return 8;
  case TP::COMPLEX128:
    return 16;
  default:
    return 0;
  }
}

uint64_t value_count(const onnx::TensorProto &t) {
  uint64_t n = 1;
  for (int64_t d : t.dims()) {
    if (d < 0)
      throw Error("tensor '" + t.name() + "' has a negative dimension");
    if (d != 0 && n > std::numeric_limits<uint64_t>::max() / 16 /
                          static_cast<uint64_t>(d))
      throw Error("tensor '" + t.name() + "' has more values than fit");
    n *= static_cast<uint64_t>(d);
  }
  return n;
}

bool is_external(const onnx::TensorProto &t) {
  return t.has_data_location() &&
         t.data_location() == onnx::TensorProto::EXTERNAL;
}

namespace {

struct Place {
  std::string location;
  uint64_t offset = 0;
  bool has_length = false;
  uint64_t length = 0;
};

uint64_t parse_count(const onnx::TensorProto &t, const std::string &key,
                     const std::string &text) {
  size_t used = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(text, &used);
  } catch (const std::exception &) {
    used = 0;
  }
  if (used == 0 || used != text.size() || text[0] == '-')
    throw Error("tensor '" + t.name() + "': external data " + key + " '" +
                text + "' is not a byte count");
  return v;
}

Place place_of(const onnx::TensorProto &t) {
  Place p;
  for (const auto &kv : t.external_data()) {
    if (kv.key() == "location")
      p.location = kv.value();
    else if (kv.key() == "offset")
      p.offset = parse_count(t, "offset", kv.value());
    else if (kv.key() == "length") {
      p.length = parse_count(t, "length", kv.value());
      p.has_length = true;
    }
  }
  if (p.location.empty())
    throw Error("tensor '" + t.name() +
                "' keeps its data in an external file but names none");
  const fs::path where(p.location);
  bool leaves = where.is_absolute();
  for (const auto &part : where)
    leaves = leaves || part == "..";
  if (leaves)
    throw Error("tensor '" + t.name() + "': external data '" + p.location +
                "' is not a path inside the model's folder");
  return p;
}

void read_into(onnx::TensorProto &t, const fs::path &folder) {
  const Place p = place_of(t);
  const fs::path file = folder / p.location;
  const std::string named =
      "tensor '" + t.name() + "': external data '" + file.string() + "'";
  std::error_code ec;
  if (!fs::is_regular_file(file, ec))
    throw Error(named + (fs::exists(file, ec) ? " is not a regular file"
                                              : " does not exist"));
  const uint64_t size = fs::file_size(file, ec);
  if (ec)
    throw Error(named + ": " + ec.message());
  const uint64_t each = raw_bytes_per_value(t.data_type());
  if (each == 0)
    throw Error("tensor '" + t.name() +
                "': quarry reads external data only of fixed-size types");
  const uint64_t want = value_count(t) * each;
  if (p.has_length && p.length != want)
    throw Error(named + " gives length " + std::to_string(p.length) +
                " where shape and type need " + std::to_string(want) +
                " bytes");
  if (p.offset > size || size - p.offset < want)
    throw Error(named + " holds " + std::to_string(size) +
                " bytes, too few for bytes " + std::to_string(p.offset) +
                " to " + std::to_string(p.offset + want) + " (truncated?)");
  std::ifstream in(file, std::ios::binary);
  std::string bytes(want, '\0');
  in.seekg(static_cast<std::streamoff>(p.offset));
  in.read(bytes.data(), static_cast<std::streamsize>(want));
  if (!in || static_cast<uint64_t>(in.gcount()) != want)
    throw Error(named + ": read failed");
  t.set_raw_data(std::move(bytes));
  t.clear_external_data();
  t.clear_data_location();
}

} // namespace

void read_external_data(onnx::ModelProto &model,
                        const std::string &model_path) {
  const fs::path folder = fs::path(model_path).parent_path();
  for_each_tensor(*model.mutable_graph(), [&](onnx::TensorProto &t) {
    if (is_external(t))
      read_into(t, folder);
  });
}

std::vector<std::string> external_data_files(const onnx::ModelProto &model) {
  std::vector<std::string> files;
  std::set<std::string> seen;
  for_each_tensor(model.graph(), [&](const onnx::TensorProto &t) {
    if (is_external(t)) {
      const std::string where = place_of(t).location;
      if (seen.insert(where).second)
        files.push_back(where);
    }
  });
  return files;
}

uint64_t move_to_external(onnx::ModelProto &model, const std::string &location,
                          uint64_t min_bytes, AtomicFile &data) {
  uint64_t offset = 0;
  for_each_tensor(*model.mutable_graph(), [&](onnx::TensorProto &t) {
    if (is_external(t) || !t.has_raw_data() || t.raw_data().size() < min_bytes)
      return;
    const uint64_t length = t.raw_data().size();
    data.append(t.raw_data());
    t.clear_raw_data();
    t.set_data_location(onnx::TensorProto::EXTERNAL);
    auto add = [&](const char *key, const std::string &value) {
      auto *kv = t.add_external_data();
      kv->set_key(key);
      kv->set_value(value);
    };
    add("location", location);
    add("offset", std::to_string(offset));
    add("length", std::to_string(length));
    offset += length;
  });
  return offset;
}

} // namespace quarry::onnx_io
