//===- tensor_file.cc - One tensor per file: ONNX .pb or NumPy .npy -------===//
#include "quarry/models/tensor_file.h"

#include "onnx_kept.h"
#include "onnx_tensor.h"

#include "quarry/core/error.h"
#include "quarry/core/file_io.h"

#include <cctype>
#include <cstring>
#include <filesystem>
#include <limits>

namespace quarry {

namespace {

bool is_npy(const std::string &path) { return path.ends_with(".npy"); }

/// The value of `key` in a .npy header dict such as
/// "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }".
std::string header_field(const std::string &header, const std::string &key) {
  const size_t k = header.find("'" + key + "'");
  if (k == std::string::npos)
    return "";
  size_t v = header.find(':', k);
  if (v == std::string::npos)
    return "";
  ++v;
  while (v < header.size() && header[v] == ' ')
    ++v;
  size_t end = v;
  if (header[v] == '(')
    end = header.find(')', v) + 1;
  else if (header[v] == '\'')
    end = header.find('\'', v + 1) + 1;
  else
    end = header.find_first_of(",}", v);
  if (end == std::string::npos || end == 0)
    return "";
  return header.substr(v, end - v);
}

template <class T>
void convert(const std::string &bytes, size_t at, Tensor<float> &t) {
  for (int64_t i = 0; i < t.numel(); ++i) {
    T v;
    std::memcpy(&v, bytes.data() + at + static_cast<size_t>(i) * sizeof(T),
                sizeof(T));
    t[i] = static_cast<float>(v);
  }
}

TensorFile read_npy(const std::string &path) {
  const std::string bytes = read_file_bytes(path);
  auto bad = [&](const std::string &what) {
    return Error(SourcePos{path, 0, 0}, "not a readable .npy file: " + what);
  };
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0)
    throw bad("no NUMPY magic");
  const int major = static_cast<unsigned char>(bytes[6]);
  size_t header_len = 0, at = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) |
                 static_cast<unsigned char>(bytes[9]) << 8;
    at = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      throw bad("truncated header");
    for (int i = 3; i >= 0; --i)
      header_len = header_len << 8 | static_cast<unsigned char>(bytes[8 + i]);
    at = 12;
  } else {
    throw bad("version " + std::to_string(major));
  }
  if (at + header_len > bytes.size())
    throw bad("truncated header");
  const std::string header = bytes.substr(at, header_len);
  at += header_len;
  if (header_field(header, "fortran_order") != "False")
    throw bad("only C-order arrays are read");
  const std::string descr = header_field(header, "descr");
  const std::string dims = header_field(header, "shape");
  if (dims.size() < 2 || dims.front() != '(')
    throw bad("no shape");
  TensorFile f;
  Shape shape;
  double elements = 1; // checked as it grows: no overflow on hostile files
  for (size_t i = 1; i + 1 < dims.size();) {
    while (i + 1 < dims.size() && (dims[i] == ' ' || dims[i] == ','))
      ++i;
    if (i + 1 >= dims.size())
      break;
    int64_t d = 0;
    size_t digits = 0;
    while (i + 1 < dims.size() && dims[i] >= '0' && dims[i] <= '9') {
      if (d > (int64_t{1} << 40))
        throw bad("dimension too large");
      d = d * 10 + (dims[i++] - '0');
      ++digits;
    }
    if (digits == 0)
      throw bad("shape " + dims);
    shape.dims.push_back(d);
    elements *= static_cast<double>(d);
    if (elements > 0x1p34)
      throw bad("shape " + dims + " is too large");
  }
  struct Kind {
    const char *descr, *onnx;
    size_t size;
  };
  static const Kind kinds[] = {{"'<f4'", "float", 4}, {"'<f8'", "double", 8},
                               {"'<i8'", "int64", 8}, {"'<i4'", "int32", 4},
                               {"'|b1'", "bool", 1},  {"'|u1'", "uint8", 1},
                               {"'|i1'", "int8", 1}};
  const Kind *kind = nullptr;
  for (const Kind &k : kinds)
    if (descr == k.descr)
      kind = &k;
  if (!kind)
    throw bad("element type " + descr +
              " (float32/64, int8/32/64, uint8 and "
              "bool are read)");
  f.elem_type = kind->onnx;
  f.value = Tensor<float>(shape, 0.0f);
  if (bytes.size() - at < static_cast<size_t>(shape.numel()) * kind->size)
    throw bad("holds fewer values than its shape " + shape.str());
  const std::string t = kind->onnx;
  if (t == "float")
    convert<float>(bytes, at, f.value);
  else if (t == "double")
    convert<double>(bytes, at, f.value);
  else if (t == "int64")
    convert<int64_t>(bytes, at, f.value);
  else if (t == "int32")
    convert<int32_t>(bytes, at, f.value);
  else if (t == "int8")
    convert<int8_t>(bytes, at, f.value);
  else
    convert<uint8_t>(bytes, at, f.value);
  return f;
}

std::string npy_bytes(const Tensor<float> &t) {
  // NumPy's spelling: "()", "(3,)", "(2, 3)".
  std::string shape = "(";
  for (int i = 0; i < t.shape.rank(); ++i)
    shape += (i ? ", " : "") + std::to_string(t.shape[i]);
  shape += t.shape.rank() == 1 ? ",)" : ")";
  std::string header =
      "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad so that the data starts on a 64-byte boundary, ending in '\n'.
  while ((10 + header.size() + 1) % 64 != 0)
    header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  out.append(reinterpret_cast<const char *>(t.data.data()),
             t.data.size() * sizeof(float));
  return out;
}

} // namespace

TensorFile read_tensor_file(const std::string &path) {
  if (is_npy(path))
    return read_npy(path);
  const std::string bytes = read_file_bytes(path);
  onnx::TensorProto proto;
  if (!proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    throw Error(SourcePos{path, 0, 0},
                "not a serialized onnx.TensorProto (truncated or another "
                "format)");
  TensorFile f;
  f.name = proto.name();
  f.elem_type = onnx_io::elem_type_name(proto.data_type());
  for (char &c : f.elem_type)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  try {
    const onnx_io::Constant c = onnx_io::decode_tensor(proto);
    if (static_cast<int64_t>(c.reals.size()) != c.shape.numel())
      throw Error("holds " + std::to_string(c.reals.size()) +
                  " values for shape " + c.shape.str());
    f.value = c.as_float();
  } catch (const Error &e) {
    throw Error(SourcePos{path, 0, 0}, e.what());
  }
  return f;
}

void write_tensor_file(const std::string &path, const Tensor<float> &t,
                       const std::string &name, int32_t elem) {
  if (is_npy(path)) {
    if (elem != onnx::TensorProto::FLOAT)
      throw Error(SourcePos{path, 0, 0},
                  ".npy files are written as float32 only");
    return write_file_atomic(path, npy_bytes(t));
  }
  write_file_atomic(path,
                    onnx_io::encode_as(name, t, elem).SerializeAsString());
}

namespace {

/// How the importer spells an ONNX name: '_' for other characters.
std::string as_identifier(const std::string &name) {
  std::string s;
  for (char c : name)
    s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return s;
}

const Node *input_named(const Graph &g, const std::string &name) {
  const Node *spelled = nullptr;
  int matches = 0;
  for (const Node &n : g.nodes()) {
    if (n.kind != OpKind::Input)
      continue;
    if (n.name == name)
      return &n;
    const std::string id = as_identifier(name);
    if (n.name == id || n.name == "v_" + id) {
      spelled = &n;
      ++matches;
    }
  }
  return matches == 1 ? spelled : nullptr;
}

} // namespace

Bindings<float> read_input_files(const Graph &g,
                                 const std::vector<std::string> &specs) {
  Bindings<float> values;
  for (const std::string &spec : specs) {
    const size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
      throw Error("--input expects NAME=FILE, got '" + spec + "'");
    const std::string name = spec.substr(0, eq), path = spec.substr(eq + 1);
    const Node *input = input_named(g, name);
    if (!input)
      throw Error("--input names '" + name + "', which is not a graph input");
    TensorFile f = read_tensor_file(path);
    // ONNX's bools are held as 0 and 1 (models/ONNX.md).
    if (f.elem_type != "float" && f.elem_type != "bool")
      throw Error(SourcePos{path, 0, 0}, "holds " + f.elem_type +
                                             " values; input '" + name +
                                             "' is float32");
    const Shape &want = input->types.at(0).shape;
    if (f.value.shape != want)
      throw Error(SourcePos{path, 0, 0}, "has shape " + f.value.shape.str() +
                                             "; input '" + name + "' is " +
                                             want.str());
    if (!values.emplace(input->name, std::move(f.value)).second)
      throw Error("--input gives '" + name + "' twice");
  }
  return values;
}

std::vector<std::string>
save_output_files(const std::vector<std::string> &names,
                  const std::vector<Tensor<float>> &outputs,
                  const std::string &dir, const std::vector<int32_t> &elems) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw Error(dir + ": cannot create the directory: " + ec.message());
  std::vector<std::string> files;
  for (size_t k = 0; k < outputs.size(); ++k) {
    const std::string path = dir + "/output_" + std::to_string(k) + ".pb";
    write_tensor_file(path, outputs[k], k < names.size() ? names[k] : "",
                      k < elems.size() ? elems[k] : onnx::TensorProto::FLOAT);
    files.push_back(path);
  }
  return files;
}

} // namespace quarry
