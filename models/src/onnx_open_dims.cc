//===- onnx_open_dims.cc - Input dimensions a model leaves open -----------===//
#include "quarry/models/onnx_open_dims.h"
#include "onnx_interface.h"

#include "quarry/core/error.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <map>

namespace quarry {

namespace {

/// The dimensions `vi` declares, or nullptr where it declares no tensor
/// shape.
const onnx::TensorShapeProto *shape_of(const onnx::ValueInfoProto &vi) {
  if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape())
    return nullptr;
  return &vi.type().tensor_type().shape();
}

/// The name of dimension `axis` of input `input`, as OpenDim has it.
std::string dim_name(const onnx::TensorShapeProto::Dimension &d,
                     const std::string &input, int axis) {
  if (d.has_dim_param() && !d.dim_param().empty())
    return d.dim_param();
  return input + "[" + std::to_string(axis) + "]";
}

/// Gives `to` the dimensions of `from` that `take` accepts (by axis),
/// where both declare shapes of one rank; whether it gave any.
template <class Take>
bool declare_like(onnx::ValueInfoProto &to, const onnx::ValueInfoProto &from,
                  Take take) {
  const onnx::TensorShapeProto *a = shape_of(from), *b = shape_of(to);
  if (!a || !b || a->dim_size() != b->dim_size())
    return false;
  bool any = false;
  auto *dims = to.mutable_type()->mutable_tensor_type()->mutable_shape();
  for (int axis = 0; axis < a->dim_size(); ++axis)
    if (!a->dim(axis).has_dim_value() && take(axis)) {
      *dims->mutable_dim(axis) = a->dim(axis);
      any = true;
    }
  return any;
}

} // namespace

std::vector<OpenDim> open_input_dims(std::string_view model) {
  const onnx::ModelProto m = onnx_io::parse_model(model, "original");
  std::set<std::string> init;
  for (const auto &t : m.graph().initializer())
    init.insert(t.name());
  std::vector<OpenDim> out;
  for (const auto &vi : m.graph().input()) {
    const onnx::TensorShapeProto *s = shape_of(vi);
    if (init.count(vi.name()) || !s)
      continue;
    for (int axis = 0; axis < s->dim_size(); ++axis) {
      const auto &d = s->dim(axis);
      if (d.has_dim_value())
        continue;
      out.push_back({vi.name(), axis, dim_name(d, vi.name(), axis),
                     d.has_dim_param() && !d.dim_param().empty()});
    }
  }
  return out;
}

std::vector<std::string> open_dim_names(const std::vector<OpenDim> &dims) {
  std::vector<std::string> names;
  for (const OpenDim &d : dims)
    if (std::find(names.begin(), names.end(), d.name) == names.end())
      names.push_back(d.name);
  return names;
}

std::string declare_open_dims(std::string_view original,
                              std::string_view written,
                              const std::set<std::string> &open) {
  const onnx::ModelProto a = onnx_io::parse_model(original, "original");
  onnx::ModelProto b = onnx_io::parse_model(written, "written");
  std::map<std::string, const onnx::ValueInfoProto *> inputs, outputs;
  for (const auto &vi : a.graph().input())
    inputs.emplace(vi.name(), &vi);
  for (const auto &vi : a.graph().output())
    outputs.emplace(vi.name(), &vi);
  bool any = false;
  for (auto &vi : *b.mutable_graph()->mutable_input()) {
    auto it = inputs.find(vi.name());
    if (it == inputs.end())
      continue;
    const onnx::TensorShapeProto *s = shape_of(*it->second);
    any = declare_like(
              vi, *it->second,
              [&](int axis) {
                return open.count(dim_name(s->dim(axis), vi.name(), axis)) > 0;
              }) ||
          any;
  }
  if (!any)
    return std::string(written);
  for (auto &vi : *b.mutable_graph()->mutable_output())
    if (auto it = outputs.find(vi.name()); it != outputs.end())
      declare_like(vi, *it->second, [](int) { return true; });
  for (auto &vi : *b.mutable_graph()->mutable_value_info())
    if (vi.type().has_tensor_type())
      vi.mutable_type()->mutable_tensor_type()->clear_shape();
  return b.SerializeAsString();
}

OnnxImportOptions with_open_dims(const OnnxImportOptions &fixed,
                                 const std::vector<OpenDim> &dims,
                                 const std::map<std::string, int64_t> &values) {
  OnnxImportOptions out = fixed;
  for (const OpenDim &d : dims) {
    auto v = values.find(d.name);
    auto s = out.input_shapes.find(d.input);
    if (v != values.end() && s != out.input_shapes.end() &&
        d.axis < s->second.rank())
      s->second[d.axis] = v->second;
  }
  return out;
}

} // namespace quarry
