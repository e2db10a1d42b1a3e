//===- onnx_attrs.h - Attributes of the ONNX nodes quarry writes -*- C++
//-*-===//
//
// Import writes nodes too (opset-17 forms, kept nodes' records, nodes a
// handler runs as) and export writes every node: one way to make their
// attributes, and to find one a node has.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <onnx/onnx_pb.h>

#include <string>
#include <string_view>
#include <vector>

namespace quarry::onnx_io {

/// Attribute `name` of `n`, or nullptr when it has none.
inline const onnx::AttributeProto *find_attr(const onnx::NodeProto &n,
                                             std::string_view name) {
  for (const auto &a : n.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

inline onnx::AttributeProto make_attr(const char *name, int64_t v) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::INT);
  a.set_i(v);
  return a;
}
inline onnx::AttributeProto make_attr(const char *name, float v) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::FLOAT);
  a.set_f(v);
  return a;
}
inline onnx::AttributeProto make_attr(const char *name,
                                      const std::vector<int64_t> &v) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v)
    a.add_ints(x);
  return a;
}
inline onnx::AttributeProto make_attr(const char *name, const std::string &v) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::STRING);
  a.set_s(v);
  return a;
}
inline onnx::AttributeProto make_attr(const char *name,
                                      const std::vector<std::string> &v) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::STRINGS);
  for (const auto &x : v)
    a.add_strings(x);
  return a;
}
inline onnx::AttributeProto make_attr(const char *name,
                                      const onnx::TensorProto &v) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::TENSOR);
  *a.mutable_t() = v;
  return a;
}

/// Adds attribute `name` of value `v` to `n`.
template <class V>
void add_attr(onnx::NodeProto &n, const char *name, const V &v) {
  *n.add_attribute() = make_attr(name, v);
}

} // namespace quarry::onnx_io
