//===- onnx_kernels_index.cc - Kernels that select by index or value ------===//
//
// ArgMax and ArgMin, GatherND, Compress, OneHot and Unique: operators
// whose outputs are indices, or elements chosen by indices or by a
// condition. Each follows ONNX's specification at the model's opset and,
// where it leaves an order or a tie open, ONNX's reference implementation
// (numpy's): NaN orders above every number, equal elements keep their
// first index.
//
//===----------------------------------------------------------------------===//
#include "onnx_kernels_impl.h"

#include "quarry/core/error.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace quarry::onnx_io::kernels {

namespace {

/// Whether `a` and `b` are the same value for ordering: equal, or both NaN.
bool same(float a, float b) {
  return a == b || (std::isnan(a) && std::isnan(b));
}

/// Whether `a` sorts before `b` as numpy sorts: NaN after every number.
bool sorts_before(float a, float b) {
  if (std::isnan(a))
    return false;
  return std::isnan(b) || a < b;
}

/// Whether `v` beats `best` for an arg max (`largest`) or arg min: NaN
/// beats every number either way, as numpy's argmax and argmin take it.
bool beats(float v, float best, bool largest) {
  if (std::isnan(v))
    return !std::isnan(best);
  if (std::isnan(best))
    return false;
  return largest ? v > best : v < best;
}

/// `v`, an index held as float32, as an int64, if it lies in [-size,
/// size) (a negative one counting from the back); else throws.
int64_t index_in(float v, int64_t size, int axis, const Shape &data) {
  if (!(v >= -static_cast<float>(size) && v < static_cast<float>(size)))
    throw Error("indices holds " + number(v) + ", outside [" +
                std::to_string(-size) + ", " + std::to_string(size - 1) +
                "] for axis " + std::to_string(axis) + " of data " +
                data.str());
  auto i = static_cast<int64_t>(v);
  return i < 0 ? i + size : i;
}

} // namespace

//===----------------------------------------------------------------------===//
// ArgMax, ArgMin
//===----------------------------------------------------------------------===//

/// The index of the largest (or smallest) element along `axis`: int64, the
/// axis kept as 1 or dropped. Ties go to the first index, or the last with
/// select_last_index (opset 12); negative axes need opset 11.
std::vector<HeldValue> arg_extreme(const onnx::NodeProto &n, int64_t opset,
                                   const Inputs &in, bool largest) {
  check_input_count(in, 1);
  const Tensor<float> &x = required_input(in, 0, "data").value;
  const int rank = x.shape.rank();
  const int axis =
      normalized_axis(int_attr(n, "axis", 0), x.shape, "data", opset >= 11);
  const bool keepdims = int_attr(n, "keepdims", 1) != 0;
  if (opset < 12 && find_attr(n, "select_last_index"))
    throw Error("attribute 'select_last_index' needs opset 12, not " +
                std::to_string(opset));
  const bool last = int_attr(n, "select_last_index", 0) != 0;
  std::vector<int64_t> dims = x.shape.dims;
  if (keepdims)
    dims[axis] = 1;
  else
    dims.erase(dims.begin() + axis);
  std::vector<float> out(static_cast<size_t>(output_elements(dims)));
  const int64_t length = x.shape[axis];
  if (length == 0 && !out.empty())
    throw Error("axis " + std::to_string(axis) + " of data " + x.shape.str() +
                " is empty: it has no " + (largest ? "largest" : "smallest") +
                " element");
  // With no output, another axis may be 0 and this one long: no loop.
  const int64_t outer = out.empty() ? 0 : span_elements(x.shape, 0, axis);
  const int64_t inner = span_elements(x.shape, axis + 1, rank);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const float *p = x.data.data() + o * length * inner + i;
      int64_t best = 0;
      for (int64_t l = 1; l < length; ++l) {
        float v = p[l * inner], b = p[best * inner];
        if (beats(v, b, largest) || (last && same(v, b)))
          best = l;
      }
      out[o * inner + i] = static_cast<float>(best);
    }
  return {make_value(Shape(std::move(dims)), std::move(out), kInt64)};
}

//===----------------------------------------------------------------------===//
// GatherND
//===----------------------------------------------------------------------===//

/// The slices of data that the last axis of indices addresses, per batch
/// of the first batch_dims axes (opset 12): indices.shape[:-1] +
/// data.shape[batch_dims + m:], where m is indices' last dimension.
std::vector<HeldValue> gather_nd(const onnx::NodeProto &n, const Inputs &in) {
  check_input_count(in, 2);
  const HeldValue &dv = required_input(in, 0, "data");
  const Tensor<float> &indices = required_input(in, 1, "indices").value;
  const Shape &ds = dv.value.shape, &is = indices.shape;
  const int r = ds.rank(), q = is.rank();
  if (r < 1 || q < 1)
    throw Error("data and indices must have a rank of at least 1, not " +
                ds.str() + " and " + is.str());
  const int64_t b = int_attr(n, "batch_dims", 0);
  if (b < 0 || b >= std::min(q, r))
    throw Error("batch_dims must be in [0, " + std::to_string(std::min(q, r)) +
                ") for data " + ds.str() + " and indices " + is.str() +
                ", not " + std::to_string(b));
  const int batch = static_cast<int>(b);
  for (int d = 0; d < batch; ++d)
    if (ds[d] != is[d])
      throw Error("data " + ds.str() + " and indices " + is.str() +
                  " differ in their first " + std::to_string(b) +
                  " (batch) dimensions");
  const int64_t m = is[q - 1];
  if (m < 1 || m > r - b)
    throw Error("the last dimension of indices " + is.str() +
                " must be between 1 and " + std::to_string(r - b) +
                " (the rank of data " + ds.str() + " less batch_dims), not " +
                std::to_string(m));
  const int end = batch + static_cast<int>(m);
  std::vector<int64_t> dims(is.dims.begin(), is.dims.end() - 1);
  dims.insert(dims.end(), ds.dims.begin() + end, ds.dims.end());
  std::vector<float> out(static_cast<size_t>(output_elements(dims)));

  const int64_t slice = span_elements(ds, end, r);
  const int64_t batches = span_elements(is, 0, batch);
  const int64_t per_batch = span_elements(is, batch, q - 1);
  const int64_t batch_stride = span_elements(ds, batch, r);
  const std::vector<int64_t> strides = ds.strides();
  if (indices.numel() == 0)
    return {make_value(Shape(std::move(dims)), std::move(out), dv.elem)};
  for (int64_t bb = 0; bb < batches; ++bb)
    for (int64_t t = 0; t < per_batch; ++t) {
      const int64_t tuple = bb * per_batch + t;
      int64_t from = bb * batch_stride;
      for (int k = 0; k < m; ++k) {
        const int axis = batch + k;
        from += index_in(indices[tuple * m + k], ds[axis], axis, ds) *
                strides[axis];
      }
      std::copy_n(dv.value.data.begin() + from, slice,
                  out.begin() + tuple * slice);
    }
  return {make_value(Shape(std::move(dims)), std::move(out), dv.elem)};
}

//===----------------------------------------------------------------------===//
// Compress
//===----------------------------------------------------------------------===//

/// The slices along `axis` (or, without one, the elements of the flattened
/// input) whose condition is true; a condition shorter than the axis
/// leaves the rest out. Negative axes need opset 11.
std::vector<HeldValue> compress(const onnx::NodeProto &n, int64_t opset,
                                const Inputs &in) {
  check_input_count(in, 2);
  const HeldValue &xv = required_input(in, 0, "input");
  const Tensor<float> &cond = required_input(in, 1, "condition").value;
  const Tensor<float> &x = xv.value;
  if (cond.shape.rank() != 1)
    throw Error("condition must be 1-D, not " + cond.shape.str());
  const int64_t given = cond.shape[0];
  if (!find_attr(n, "axis")) {
    if (given > x.numel())
      throw Error("condition holds " + std::to_string(given) +
                  " values, more than the " + std::to_string(x.numel()) +
                  " of input " + x.shape.str());
    std::vector<float> out;
    for (int64_t i = 0; i < given; ++i)
      if (cond[i] != 0.0f)
        out.push_back(x[i]);
    const auto count = static_cast<int64_t>(out.size());
    return {make_value(Shape{count}, std::move(out), xv.elem)};
  }
  const int rank = x.shape.rank();
  const int axis =
      normalized_axis(int_attr(n, "axis", 0), x.shape, "input", opset >= 11);
  const int64_t length = x.shape[axis];
  if (given > length)
    throw Error("condition holds " + std::to_string(given) +
                " values, more than the " + std::to_string(length) +
                " of axis " + std::to_string(axis) + " of input " +
                x.shape.str());
  std::vector<int64_t> kept;
  for (int64_t l = 0; l < given; ++l)
    if (cond[l] != 0.0f)
      kept.push_back(l);
  Shape out_shape = x.shape;
  out_shape[axis] = static_cast<int64_t>(kept.size());
  std::vector<float> out;
  out.reserve(static_cast<size_t>(output_elements(out_shape.dims)));
  const int64_t outer =
      out.capacity() == 0 ? 0 : span_elements(x.shape, 0, axis);
  const int64_t inner = span_elements(x.shape, axis + 1, rank);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t l : kept) {
      auto from = x.data.begin() + (o * length + l) * inner;
      out.insert(out.end(), from, from + inner);
    }
  return {make_value(std::move(out_shape), std::move(out), xv.elem)};
}

//===----------------------------------------------------------------------===//
// OneHot
//===----------------------------------------------------------------------===//

/// indices (truncated to integers) as one-hot vectors of `depth` along a
/// new axis `axis`: on_value where the index is, off_value elsewhere, and
/// off_value throughout for an index outside [0, depth). From opset 11 a
/// negative index counts from the back, down to -depth.
std::vector<HeldValue> one_hot(const onnx::NodeProto &n, int64_t opset,
                               const Inputs &in) {
  check_input_count(in, 3);
  const Tensor<float> &indices = required_input(in, 0, "indices").value;
  const Tensor<float> &depth_v = required_input(in, 1, "depth").value;
  const HeldValue &values = required_input(in, 2, "values");
  if (depth_v.numel() != 1 || depth_v.shape.rank() > 1)
    throw Error("depth must be a scalar, not of shape " + depth_v.shape.str());
  const float d = std::trunc(depth_v[0]);
  if (!(d >= 1.0f) || std::isinf(d))
    throw Error("depth must be positive, not " + number(depth_v[0]));
  const int64_t depth = saturate_int(d);
  if (values.value.shape != Shape{2})
    throw Error("values must be [off_value, on_value], of shape [2], not " +
                values.value.shape.str());
  const int rank = indices.shape.rank();
  int64_t axis = int_attr(n, "axis", -1);
  if (axis < -rank - 1 || axis > rank)
    throw Error("axis " + std::to_string(axis) + " is out of range for " +
                "indices of " + indices.shape.str() + " and the axis added");
  if (axis < 0)
    axis += rank + 1;
  std::vector<int64_t> dims = indices.shape.dims;
  dims.insert(dims.begin() + axis, depth);
  const float off = values.value[0], on = values.value[1];
  std::vector<float> out(static_cast<size_t>(output_elements(dims)), off);
  const int64_t outer =
      indices.numel() == 0
          ? 0
          : span_elements(indices.shape, 0, static_cast<int>(axis));
  const int64_t inner =
      span_elements(indices.shape, static_cast<int>(axis), rank);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const float v = indices[o * inner + i];
      if (std::isnan(v))
        continue;
      int64_t at = saturate_int(std::trunc(v));
      if (at < 0 && opset >= 11)
        at += depth;
      if (at >= 0 && at < depth)
        out[(o * depth + at) * inner + i] = on;
    }
  return {make_value(Shape(std::move(dims)), std::move(out), values.elem)};
}

//===----------------------------------------------------------------------===//
// Unique
//===----------------------------------------------------------------------===//

/// The distinct elements of X (flattened), or its distinct slices along
/// `axis`, as ONNX's reference finds them with numpy's unique: sorted
/// ascending (NaNs one value, last; slices compared element by element in
/// row-major order), or with sorted=0 in order of first occurrence. Its
/// outputs: Y, the index of each one's first occurrence, the one each
/// element or slice of X is (inverse_indices), and how often each occurs.
std::vector<HeldValue> unique(const onnx::NodeProto &n, const Inputs &in) {
  check_input_count(in, 1);
  const HeldValue &xv = required_input(in, 0, "X");
  const Tensor<float> &x = xv.value;
  const bool sorted = int_attr(n, "sorted", 1) != 0;
  const bool by_axis = find_attr(n, "axis") != nullptr;
  // Slice s holds, for each of outer x inner positions (o, i), the element
  // x[(o * count + s) * inner + i]; without an axis, one element each.
  int axis = 0;
  int64_t outer = 1, inner = 1, count = x.numel();
  if (by_axis) {
    axis = normalized_axis(int_attr(n, "axis", 0), x.shape, "X");
    outer = span_elements(x.shape, 0, axis);
    count = x.shape[axis];
    inner = span_elements(x.shape, axis + 1, x.shape.rank());
  }
  output_elements({count}); // inverse_indices: one per slice
  const int64_t width = count == 0 ? 0 : outer * inner;
  auto at = [&](int64_t s, int64_t e) {
    return x[((e / inner) * count + s) * inner + e % inner];
  };
  auto less = [&](int64_t a, int64_t b) {
    for (int64_t e = 0; e < width; ++e)
      if (float va = at(a, e), vb = at(b, e); !same(va, vb))
        return sorts_before(va, vb);
    return false;
  };

  // Stable, so that each run of equal slices starts at its first
  // occurrence.
  std::vector<int64_t> order(static_cast<size_t>(count));
  std::iota(order.begin(), order.end(), int64_t{0});
  std::stable_sort(order.begin(), order.end(), less);
  std::vector<int64_t> first, counts, group(static_cast<size_t>(count));
  for (int64_t j = 0; j < count; ++j) {
    const int64_t s = order[j];
    if (j == 0 || less(order[j - 1], s)) {
      first.push_back(s);
      counts.push_back(0);
    }
    group[s] = static_cast<int64_t>(first.size()) - 1;
    ++counts.back();
  }
  const auto found = static_cast<int64_t>(first.size());
  // Output position of each group: sorted order, or first occurrence.
  std::vector<int64_t> ranked(first.size());
  std::iota(ranked.begin(), ranked.end(), int64_t{0});
  if (!sorted)
    std::sort(ranked.begin(), ranked.end(),
              [&](int64_t a, int64_t b) { return first[a] < first[b]; });
  std::vector<int64_t> position(first.size());
  for (int64_t g = 0; g < found; ++g)
    position[ranked[g]] = g;

  Shape y_shape{found};
  if (by_axis) {
    y_shape = x.shape;
    y_shape[axis] = found;
  }
  std::vector<float> y(static_cast<size_t>(found * width));
  std::vector<float> first_index(first.size()), how_many(first.size());
  for (int64_t g = 0; g < found; ++g) {
    const int64_t s = first[ranked[g]];
    first_index[g] = static_cast<float>(s);
    how_many[g] = static_cast<float>(counts[ranked[g]]);
    for (int64_t e = 0; e < width; ++e)
      y[((e / inner) * found + g) * inner + e % inner] = at(s, e);
  }
  std::vector<float> inverse(static_cast<size_t>(count));
  for (int64_t s = 0; s < count; ++s)
    inverse[s] = static_cast<float>(position[group[s]]);

  std::vector<HeldValue> out;
  out.push_back(make_value(std::move(y_shape), std::move(y), xv.elem));
  out.push_back(make_value(Shape{found}, std::move(first_index), kInt64));
  out.push_back(make_value(Shape{count}, std::move(inverse), kInt64));
  out.push_back(make_value(Shape{found}, std::move(how_many), kInt64));
  return out;
}

} // namespace quarry::onnx_io::kernels
