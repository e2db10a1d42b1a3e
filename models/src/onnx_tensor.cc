//===- onnx_tensor.cc - TensorProto <-> quarry tensors --------------------===//
#include "onnx_tensor.h"

#include <iterator>

#include "onnx_external_data.h"

#include "quarry/core/error.h"

#include <Imath/half.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace quarry::onnx_io {

std::string elem_type_name(int32_t elem) {
  using TP = onnx::TensorProto;
  if (TP::DataType_IsValid(elem))
    return TP::DataType_Name(static_cast<TP::DataType>(elem));
  // Named after ONNX 1.12, the version the protobuf enum comes from.
  static const char *const kLater[] = {
      "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4",
      "INT4",         "FLOAT4E2M1",     "FLOAT8E8M0", "UINT2",          "INT2"};
  constexpr int32_t kFirstLater = 17;
  if (elem >= kFirstLater &&
      elem < kFirstLater + static_cast<int32_t>(std::size(kLater)))
    return kLater[elem - kFirstLater];
  return "type " + std::to_string(elem);
}

Tensor<float> Constant::as_float() const {
  Tensor<float> t(shape, 0.0f);
  for (size_t i = 0; i < reals.size(); ++i)
    t[static_cast<int64_t>(i)] = static_cast<float>(reals[i]);
  return t;
}

namespace {
template <class T> std::vector<T> raw_values(const std::string &raw) {
  std::vector<T> v(raw.size() / sizeof(T));
  if (!v.empty())
    std::memcpy(v.data(), raw.data(), v.size() * sizeof(T));
  return v;
}

/// The float32 of a float16 or bfloat16 bit pattern.
float widen(int32_t elem, uint16_t bits) {
  if (elem == onnx::TensorProto::FLOAT16) {
    Imath::half h;
    h.setBits(bits);
    return static_cast<float>(h);
  }
  const uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &wide, sizeof f);
  return f;
}

/// The float16 or bfloat16 bit pattern nearest `v` (ties to even).
uint16_t narrow(int32_t elem, float v) {
  if (elem == onnx::TensorProto::FLOAT16)
    return Imath::half(v).bits();
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  if (std::isnan(v))
    return static_cast<uint16_t>((bits >> 16) | 0x40); // stays a NaN
  bits += 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

template <class T> void append(Constant &c, const std::vector<T> &v) {
  c.reals.reserve(v.size());
  c.ints.reserve(v.size());
  for (T x : v) {
    c.reals.push_back(static_cast<double>(x));
    if constexpr (std::is_floating_point_v<T>) {
      const double r = std::round(static_cast<double>(x));
      c.ints.push_back(std::abs(r) < 9.2e18 ? static_cast<int64_t>(r)
                                            : (r > 0 ? INT64_MAX : INT64_MIN));
    } else {
      c.ints.push_back(static_cast<int64_t>(x));
    }
  }
}
} // namespace

namespace {

/// How many values `t` stores (raw or in its typed field).
uint64_t stored_values(const onnx::TensorProto &t) {
  using TP = onnx::TensorProto;
  if (t.has_raw_data()) {
    const uint64_t each = raw_bytes_per_value(t.data_type());
    return each == 0 ? 0 : t.raw_data().size() / each;
  }
  switch (t.data_type()) {
  case TP::FLOAT:
    return static_cast<uint64_t>(t.float_data_size());
  case TP::DOUBLE:
    return static_cast<uint64_t>(t.double_data_size());
  case TP::INT64:
    return static_cast<uint64_t>(t.int64_data_size());
  default:
    return static_cast<uint64_t>(t.int32_data_size());
  }
}

} // namespace

void check_value_count(const onnx::TensorProto &t) {
  uint64_t want = 1;
  for (int64_t d : t.dims())
    want = d < 0 ? UINT64_MAX : want * static_cast<uint64_t>(d);
  const uint64_t have = stored_values(t);
  if (have != want) {
    Shape shape;
    for (int64_t d : t.dims())
      shape.dims.push_back(d);
    throw Error("tensor '" + t.name() + "' has " + std::to_string(have) +
                " values for shape " + shape.str() + " (truncated?)");
  }
}

Tensor<float> decode_float(const onnx::TensorProto &t) {
  if (t.data_type() != onnx::TensorProto::FLOAT || !t.has_raw_data())
    return decode_tensor(t).as_float();
  check_value_count(t);
  Shape shape;
  for (int64_t d : t.dims())
    shape.dims.push_back(d);
  Tensor<float> out(shape, 0.0f);
  if (!out.data.empty())
    std::memcpy(out.data.data(), t.raw_data().data(),
                out.data.size() * sizeof(float));
  return out;
}

Constant decode_tensor(const onnx::TensorProto &t) {
  Constant c;
  c.elem = t.data_type();
  for (int64_t d : t.dims())
    c.shape.dims.push_back(d);
  if (t.has_data_location() && t.data_location() == onnx::TensorProto::EXTERNAL)
    throw Error("tensor '" + t.name() +
                "' keeps its data in an external "
                "file, which is not supported");
  if (decodable(t.data_type()))
    check_value_count(t);
  const bool raw = t.has_raw_data();
  using TP = onnx::TensorProto;
  switch (t.data_type()) {
  case TP::FLOAT:
    append(c, raw ? raw_values<float>(t.raw_data())
                  : std::vector<float>(t.float_data().begin(),
                                       t.float_data().end()));
    break;
  case TP::FLOAT16:
  case TP::BFLOAT16: {
    // Raw: two bytes each; else one bit pattern per int32.
    const std::vector<uint16_t> bits =
        raw ? raw_values<uint16_t>(t.raw_data())
            : std::vector<uint16_t>(t.int32_data().begin(),
                                    t.int32_data().end());
    std::vector<float> wide;
    wide.reserve(bits.size());
    for (uint16_t b : bits)
      wide.push_back(widen(t.data_type(), b));
    append(c, wide);
    break;
  }
  case TP::DOUBLE:
    append(c, raw ? raw_values<double>(t.raw_data())
                  : std::vector<double>(t.double_data().begin(),
                                        t.double_data().end()));
    break;
  case TP::INT64:
    append(c, raw ? raw_values<int64_t>(t.raw_data())
                  : std::vector<int64_t>(t.int64_data().begin(),
                                         t.int64_data().end()));
    break;
  case TP::INT32:
    append(c, raw ? raw_values<int32_t>(t.raw_data())
                  : std::vector<int32_t>(t.int32_data().begin(),
                                         t.int32_data().end()));
    break;
  case TP::INT16:
  case TP::UINT16:
  case TP::INT8:
  case TP::UINT8:
  case TP::BOOL:
    if (raw) {
      if (t.data_type() == TP::INT8)
        append(c, raw_values<int8_t>(t.raw_data()));
      else if (t.data_type() == TP::INT16)
        append(c, raw_values<int16_t>(t.raw_data()));
      else if (t.data_type() == TP::UINT16)
        append(c, raw_values<uint16_t>(t.raw_data()));
      else
        append(c, raw_values<uint8_t>(t.raw_data()));
    } else {
      append(c, std::vector<int32_t>(t.int32_data().begin(),
                                     t.int32_data().end()));
    }
    break;
  default:
    throw Error("tensor '" + t.name() + "' has unsupported element type " +
                elem_type_name(t.data_type()));
  }
  return c;
}

bool decodable(int32_t elem) {
  using TP = onnx::TensorProto;
  switch (elem) {
  case TP::FLOAT:
  case TP::FLOAT16:
  case TP::BFLOAT16:
  case TP::DOUBLE:
  case TP::INT64:
  case TP::INT32:
  case TP::INT16:
  case TP::UINT16:
  case TP::INT8:
  case TP::UINT8:
  case TP::BOOL:
    return true;
  default:
    return false;
  }
}

bool integral(int32_t elem) {
  return elem != onnx::TensorProto::FLOAT &&
         elem != onnx::TensorProto::DOUBLE &&
         elem != onnx::TensorProto::FLOAT16 &&
         elem != onnx::TensorProto::BFLOAT16;
}

bool held_as_float(int32_t elem) {
  return elem == onnx::TensorProto::FLOAT ||
         elem == onnx::TensorProto::FLOAT16 ||
         elem == onnx::TensorProto::BFLOAT16;
}

bool half_float(int32_t elem) {
  return elem == onnx::TensorProto::FLOAT16 ||
         elem == onnx::TensorProto::BFLOAT16;
}

bool held_exactly(int32_t elem) {
  return elem == onnx::TensorProto::BOOL || elem == onnx::TensorProto::INT8 ||
         elem == onnx::TensorProto::UINT8 || elem == onnx::TensorProto::INT16 ||
         elem == onnx::TensorProto::UINT16;
}

float round_to(int32_t elem, float v) {
  return half_float(elem) ? widen(elem, narrow(elem, v)) : v;
}

onnx::TensorProto encode_tensor(const std::string &name, const Tensor<float> &t,
                                int32_t elem) {
  if (elem == onnx::TensorProto::FLOAT)
    return encode_tensor(name, t);
  std::vector<uint16_t> bits;
  bits.reserve(t.data.size());
  for (float v : t.data)
    bits.push_back(narrow(elem, v));
  onnx::TensorProto p;
  p.set_name(name);
  p.set_data_type(elem);
  for (int64_t d : t.shape.dims)
    p.add_dims(d);
  p.set_raw_data(std::string(reinterpret_cast<const char *>(bits.data()),
                             bits.size() * sizeof(uint16_t)));
  return p;
}

onnx::TensorProto encode_tensor(const std::string &name,
                                const Tensor<float> &t) {
  onnx::TensorProto p;
  p.set_name(name);
  p.set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : t.shape.dims)
    p.add_dims(d);
  p.set_raw_data(std::string(reinterpret_cast<const char *>(t.data.data()),
                             t.data.size() * sizeof(float)));
  return p;
}

onnx::TensorProto encode_ints(const std::string &name,
                              const std::vector<int64_t> &values) {
  onnx::TensorProto p;
  p.set_name(name);
  p.set_data_type(onnx::TensorProto::INT64);
  p.add_dims(static_cast<int64_t>(values.size()));
  for (int64_t v : values)
    p.add_int64_data(v);
  return p;
}

} // namespace quarry::onnx_io
