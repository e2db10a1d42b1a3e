//===- onnx_scatter.h - Where a scatter's updates go, how they combine -*- C++
//-*-===//
//
// ScatterElements (and Scatter before opset 11), ScatterND and MaxUnpool
// write updates into a copy of their data (zeros, for MaxUnpool) at flat
// positions their indices give. The importer lowers one whose indices are
// constants (onnx_import_scatter.cc); a kernel runs one whose indices are
// computed (onnx_kernels_scatter.cc). Both find the positions here, and
// both apply the updates in their order, as ONNX's reference and ONNX
// Runtime do: a position written twice takes the last update (reduction
// none), or combines them one after another (add, mul, max, min).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/scalar_fns.h"
#include "quarry/core/shape.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace quarry::onnx_io {

/// How a written element combines with its update: nullopt replaces it
/// (reduction none), else the element becomes fn(element, update).
using ScatterReduction = std::optional<ops::BroadcastFn>;

/// The reduction named `name` (ONNX's attribute: none, add and mul from
/// opset 16, max and min from 18); throws quarry::Error naming what the
/// opset allows.
ScatterReduction scatter_reduction(const std::string &name, int64_t opset);

/// ScatterElements: the flat position in `data` of each element of
/// `updates` (row-major), whose coordinate along `axis` (negative from the
/// back) is the matching element of `indices` (of the updates' shape).
/// Throws quarry::Error for an index out of range or shapes that disagree.
std::vector<int64_t>
scatter_elements_positions(const Shape &data, const Shape &updates,
                           const Shape &indices_shape,
                           const std::vector<int64_t> &indices, int64_t axis);

/// ScatterND: each index tuple (the last axis of `indices`) picks a slice
/// of `data`; the positions of the slices' elements in the updates' order.
std::vector<int64_t> scatter_nd_positions(const Shape &data,
                                          const Shape &updates,
                                          const Shape &indices_shape,
                                          const std::vector<int64_t> &indices);

/// MaxUnpool's output dimensions without output_shape: X's first two,
/// then (in - 1) * stride + kernel - pads (begin and end) per spatial axis;
/// `strides` and `pads` empty take 1 and 0. Throws quarry::Error where the
/// lists do not fit X or an axis comes out empty.
std::vector<int64_t> unpool_dims(const Shape &x,
                                 const std::vector<int64_t> &kernel,
                                 std::vector<int64_t> strides,
                                 std::vector<int64_t> pads);

/// MaxUnpool: `indices` are flat positions in the output (of `output`
/// elements), as MaxPool's Indices output gives them.
std::vector<int64_t> unpool_positions(int64_t output,
                                      const std::vector<int64_t> &indices);

/// Writes `updates[k]` into `data[positions[k]]` for each k in order,
/// combined by `r`.
void scatter_in_place(std::vector<float> &data,
                      const std::vector<float> &updates,
                      const std::vector<int64_t> &positions,
                      ScatterReduction r);

} // namespace quarry::onnx_io
