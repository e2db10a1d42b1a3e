//===- onnx_scatter.cc - Where a scatter's updates go, how they combine ---===//
#include "onnx_scatter.h"

#include "quarry/core/error.h"

namespace quarry::onnx_io {

namespace {

using Ints = std::vector<int64_t>;

/// `c`, a coordinate along axis `axis` of `data` (negative from the back),
/// counted from the front; throws where it is out of range.
int64_t coordinate(int64_t c, const Shape &data, int axis) {
  const int64_t extent = data[axis];
  if (c < -extent || c >= extent)
    throw Error("index " + std::to_string(c) + " out of range for axis " +
                std::to_string(axis) + " of " + data.str());
  return c < 0 ? c + extent : c;
}

} // namespace

ScatterReduction scatter_reduction(const std::string &name, int64_t opset) {
  using F = ops::BroadcastFn;
  if (name == "none")
    return std::nullopt;
  if (name == "add" && opset >= 16)
    return F::Add;
  if (name == "mul" && opset >= 16)
    return F::Mul;
  if (name == "max" && opset >= 18)
    return F::Max;
  if (name == "min" && opset >= 18)
    return F::Min;
  throw Error("reduction '" + name + "' is not one of " +
              (opset >= 18   ? "none, add, mul, max and min"
               : opset >= 16 ? "none, add and mul (max and min need opset 18)"
                             : "none (the others need opset 16)"));
}

Ints scatter_elements_positions(const Shape &data, const Shape &updates,
                                const Shape &indices_shape, const Ints &indices,
                                int64_t axis_attr) {
  if (indices_shape != updates || updates.rank() != data.rank())
    throw Error("indices " + indices_shape.str() + " and updates " +
                updates.str() + " must have one shape, of data's rank " +
                std::to_string(data.rank()));
  const int rank = data.rank();
  if (axis_attr < -rank || axis_attr >= rank)
    throw Error("axis " + std::to_string(axis_attr) +
                " is out of range for data " + data.str());
  const int axis =
      static_cast<int>(axis_attr < 0 ? axis_attr + rank : axis_attr);
  const auto strides = data.strides();
  Ints coord(static_cast<size_t>(rank), 0), positions;
  positions.reserve(static_cast<size_t>(updates.numel()));
  for (int64_t k = 0; k < updates.numel(); ++k) {
    int64_t flat = 0;
    for (int d = 0; d < rank; ++d) {
      int64_t c = coord[static_cast<size_t>(d)];
      if (d == axis)
        c = coordinate(indices[static_cast<size_t>(k)], data, d);
      else if (c >= data[d])
        throw Error("updates " + updates.str() + " exceed data " + data.str());
      flat += c * strides[static_cast<size_t>(d)];
    }
    positions.push_back(flat);
    for (int d = rank - 1; d >= 0; --d) {
      if (++coord[static_cast<size_t>(d)] < updates[d])
        break;
      coord[static_cast<size_t>(d)] = 0;
    }
  }
  return positions;
}

Ints scatter_nd_positions(const Shape &data, const Shape &updates,
                          const Shape &indices_shape, const Ints &indices) {
  const int ir = indices_shape.rank();
  if (ir < 1)
    throw Error("indices must have at least one axis");
  const int64_t q = indices_shape[ir - 1];
  if (q < 1 || q > data.rank())
    throw Error("index tuples of " + std::to_string(q) + " values for data " +
                data.str());
  int64_t inner = 1;
  for (int d = static_cast<int>(q); d < data.rank(); ++d)
    inner *= data[d];
  const int64_t tuples = indices_shape.numel() / q;
  if (updates.numel() != tuples * inner)
    throw Error("updates " + updates.str() + " hold " +
                std::to_string(updates.numel()) + " values for " +
                std::to_string(tuples) + " slices of " + std::to_string(inner));
  const auto strides = data.strides();
  Ints positions;
  positions.reserve(static_cast<size_t>(tuples * inner));
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t base = 0;
    for (int64_t j = 0; j < q; ++j)
      base += coordinate(indices[static_cast<size_t>(t * q + j)], data,
                         static_cast<int>(j)) *
              strides[static_cast<size_t>(j)];
    for (int64_t o = 0; o < inner; ++o)
      positions.push_back(base + o);
  }
  return positions;
}

Ints unpool_dims(const Shape &x, const Ints &kernel, Ints strides, Ints pads) {
  const int spatial = x.rank() - 2;
  if (spatial < 1)
    throw Error("X " + x.str() + " must have a spatial axis");
  const auto n = static_cast<size_t>(spatial);
  if (strides.empty())
    strides.assign(n, 1);
  if (pads.empty())
    pads.assign(2 * n, 0);
  if (kernel.size() != n || strides.size() != n || pads.size() != 2 * n)
    throw Error("kernel_shape, strides and pads must give " +
                std::to_string(spatial) + " spatial axes (pads twice)");
  Ints dims{x[0], x[1]};
  for (size_t d = 0; d < n; ++d) {
    dims.push_back((x[static_cast<int>(2 + d)] - 1) * strides[d] + kernel[d] -
                   pads[d] - pads[n + d]);
    if (dims.back() < 1)
      throw Error("the output " + Shape(dims).str() + " has an empty axis");
  }
  return dims;
}

Ints unpool_positions(int64_t output, const Ints &indices) {
  for (int64_t i : indices)
    if (i < 0 || i >= output)
      throw Error("index " + std::to_string(i) + " is outside the output's " +
                  std::to_string(output) + " elements");
  return indices;
}

void scatter_in_place(std::vector<float> &data,
                      const std::vector<float> &updates, const Ints &positions,
                      ScatterReduction r) {
  for (size_t k = 0; k < positions.size(); ++k) {
    float &to = data[static_cast<size_t>(positions[k])];
    to = r ? ops::broadcast_value(*r, to, updates[k]) : updates[k];
  }
}

} // namespace quarry::onnx_io
