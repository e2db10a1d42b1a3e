//===- onnx_kernels_pool.cc - MaxPool with its Indices output -------------===//
//
// A MaxPool that names its second output (the index of each window's
// maximum, which MaxUnpool reads) has no form in quarry's algebra: it runs
// here, over any number of spatial axes. The windows are those the
// algebra's pool2d_explicit takes (extents by ops::pool_extent, padding
// and NaN never win); an index is flat over the whole input, its spatial
// part row-major, or column-major with storage_order 1; of equal maxima
// the first in row-major order wins, as ONNX Runtime scans them.
//
//===----------------------------------------------------------------------===//
#include "onnx_kernels_impl.h"
#include "onnx_window_pads.h"

#include "quarry/core/error.h"
#include "quarry/core/ops/pool2d_explicit.h"

#include <limits>

namespace quarry::onnx_io::kernels {

namespace {

using Ints = std::vector<int64_t>;

} // namespace

std::vector<HeldValue> max_pool(const onnx::NodeProto &n, const Inputs &in) {
  check_input_count(in, 1);
  const HeldValue &xv = required_input(in, 0, "X");
  const Shape &x = xv.value.shape;
  const int rank = x.rank();
  if (rank < 3)
    throw Error("X " + x.str() + " must have a spatial axis");
  const auto spatial = static_cast<size_t>(rank - 2);
  const Ints k = ints_attr(n, "kernel_shape");
  Ints s = ints_attr(n, "strides"), d = ints_attr(n, "dilations"),
       p = ints_attr(n, "pads");
  if (s.empty())
    s.assign(spatial, 1);
  if (d.empty())
    d.assign(spatial, 1);
  if (p.empty())
    p.assign(2 * spatial, 0);
  if (k.size() != spatial || s.size() != spatial || d.size() != spatial ||
      p.size() != 2 * spatial)
    throw Error("kernel_shape, strides, dilations and pads must give " +
                std::to_string(spatial) + " spatial axes (pads twice) for X " +
                x.str());
  for (size_t i = 0; i < spatial; ++i)
    if (k[i] < 1 || s[i] < 1 || d[i] < 1 || k[i] > (int64_t{1} << 31) ||
        d[i] > (int64_t{1} << 31))
      throw Error("kernel_shape, strides and dilations must be positive");
  Ints span(spatial);
  for (size_t i = 0; i < spatial; ++i)
    span[i] = (k[i] - 1) * d[i] + 1;
  const std::string pad_mode = string_attr(n, "auto_pad", "NOTSET");
  if (pad_mode == "SAME_UPPER" || pad_mode == "SAME_LOWER")
    p = same_pads(Ints(x.dims.begin() + 2, x.dims.end()), span, s,
                  pad_mode == "SAME_UPPER");
  else if (pad_mode == "VALID")
    p.assign(2 * spatial, 0);
  else if (pad_mode != "NOTSET")
    throw Error("auto_pad '" + pad_mode +
                "' is not one of NOTSET, "
                "SAME_UPPER, SAME_LOWER and VALID");
  const bool ceil = int_attr(n, "ceil_mode", 0) != 0;
  const bool columns = int_attr(n, "storage_order", 0) != 0;
  if (columns && spatial != 2)
    throw Error("storage_order 1 needs two spatial axes, not " +
                std::to_string(spatial));

  Ints dims{x[0], x[1]};
  for (size_t i = 0; i < spatial; ++i)
    dims.push_back(ops::pool_extent(x[static_cast<int>(2 + i)], k[i], s[i],
                                    d[i], p[i], p[spatial + i], ceil));
  const int64_t outputs = output_elements(dims);
  const Shape out_shape(dims);
  const int64_t plane = span_elements(x, 2, rank),
                out_plane = span_elements(out_shape, 2, rank),
                taps = span_elements(Shape(k), 0, static_cast<int>(spatial));
  std::vector<float> values(static_cast<size_t>(outputs)),
      indices(static_cast<size_t>(outputs));
  Ints at(spatial), tap(spatial), pos(spatial);
  for (int64_t pl = 0; pl < x[0] * x[1]; ++pl)
    for (int64_t o = 0; o < out_plane; ++o) {
      for (int64_t r = o, i = static_cast<int64_t>(spatial) - 1; i >= 0; --i) {
        at[i] = r % dims[2 + i];
        r /= dims[2 + i];
      }
      float best = -std::numeric_limits<float>::infinity();
      int64_t best_at = -1;
      for (int64_t t = 0; t < taps; ++t) {
        bool inside = true;
        int64_t flat = 0;
        for (int64_t r = t, i = static_cast<int64_t>(spatial) - 1; i >= 0;
             --i) {
          tap[i] = r % k[i];
          r /= k[i];
        }
        for (size_t i = 0; i < spatial; ++i) {
          pos[i] = at[i] * s[i] - p[i] + tap[i] * d[i];
          const int64_t extent = x[static_cast<int>(2 + i)];
          inside = inside && pos[i] >= 0 && pos[i] < extent;
          flat = flat * extent + pos[i];
        }
        if (!inside)
          continue;
        const float v = xv.value.data[static_cast<size_t>(pl * plane + flat)];
        // NaN never wins, as in the algebra's max pooling.
        if (v > best || (best_at < 0 && v == best)) {
          best = v;
          best_at = columns ? pos[1] * x[2] + pos[0] : flat;
        }
      }
      const auto to = static_cast<size_t>(pl * out_plane + o);
      values[to] = best;
      indices[to] = static_cast<float>(best_at < 0 ? -1 : pl * plane + best_at);
    }
  std::vector<HeldValue> out;
  out.push_back(make_value(out_shape, std::move(values), xv.elem));
  out.push_back(make_value(out_shape, std::move(indices), kInt64));
  return out;
}

} // namespace quarry::onnx_io::kernels
