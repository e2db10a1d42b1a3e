//===- onnx_kernels_scatter.cc - Scatters at computed indices -------------===//
//
// ScatterElements (and Scatter), ScatterND and MaxUnpool whose indices a
// model computes: the positions and the order of the updates are those the
// importer lowers constant indices with (onnx_scatter.h), applied to the
// concrete values.
//
//===----------------------------------------------------------------------===//
#include "onnx_kernels_impl.h"
#include "onnx_scatter.h"

#include "quarry/core/error.h"

namespace quarry::onnx_io::kernels {

namespace {

std::vector<int64_t> ints_of(const Tensor<float> &t) {
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(t.numel()));
  for (float v : t.data)
    out.push_back(saturate_int(v));
  return out;
}

/// Scatter `n` (of ScatterElements' or ScatterND's operands: data,
/// indices, updates) with the positions `positions_of` finds for them.
template <class Positions>
std::vector<HeldValue> scattered(const onnx::NodeProto &n, int64_t opset,
                                 const Inputs &in, Positions positions_of) {
  check_input_count(in, 3);
  const HeldValue &data = required_input(in, 0, "data");
  const Tensor<float> &indices = required_input(in, 1, "indices").value;
  const Tensor<float> &updates = required_input(in, 2, "updates").value;
  const ScatterReduction r =
      scatter_reduction(string_attr(n, "reduction", "none"), opset);
  std::vector<float> out = data.value.data;
  scatter_in_place(out, updates.data,
                   positions_of(data.value.shape, updates.shape, indices.shape,
                                ints_of(indices)),
                   r);
  return {make_value(data.value.shape, std::move(out), data.elem)};
}

} // namespace

std::vector<HeldValue> scatter_elements(const onnx::NodeProto &n, int64_t opset,
                                        const Inputs &in) {
  const int64_t axis = int_attr(n, "axis", 0);
  return scattered(
      n, opset, in,
      [axis](const Shape &data, const Shape &updates,
             const Shape &indices_shape, const std::vector<int64_t> &indices) {
        return scatter_elements_positions(data, updates, indices_shape, indices,
                                          axis);
      });
}

std::vector<HeldValue> scatter_nd(const onnx::NodeProto &n, int64_t opset,
                                  const Inputs &in) {
  return scattered(n, opset, in, scatter_nd_positions);
}

std::vector<HeldValue> max_unpool(const onnx::NodeProto &n, const Inputs &in) {
  check_input_count(in, 3);
  const HeldValue &x = required_input(in, 0, "X");
  const Tensor<float> &indices = required_input(in, 1, "I").value;
  if (indices.shape != x.value.shape)
    throw Error("I " + indices.shape.str() + " must have X's shape " +
                x.value.shape.str());
  std::vector<int64_t> dims;
  if (const HeldValue *shape = optional_input(in, 2)) {
    dims = ints_of(shape->value);
    if (static_cast<int>(dims.size()) != x.value.shape.rank())
      throw Error("output_shape holds " + std::to_string(dims.size()) +
                  " dimensions for X " + x.value.shape.str());
  } else {
    dims = unpool_dims(x.value.shape, ints_attr(n, "kernel_shape"),
                       ints_attr(n, "strides"), ints_attr(n, "pads"));
  }
  std::vector<float> out(static_cast<size_t>(output_elements(dims)), 0.0f);
  scatter_in_place(
      out, x.value.data,
      unpool_positions(static_cast<int64_t>(out.size()), ints_of(indices)),
      std::nullopt);
  return {make_value(Shape(std::move(dims)), std::move(out), x.elem)};
}

} // namespace quarry::onnx_io::kernels
