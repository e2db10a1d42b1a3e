//===- onnx_kernels_masks.cc - Masks, running sums and identity matrices --===//
//
// CumSum, Trilu, EyeLike, ReverseSequence, IsInf and IsNaN: operators that
// keep their input's shape (or, for EyeLike, take it) and compute each
// element from its position or its own value. Each follows ONNX's specification
// at the model's opset.
//
//===----------------------------------------------------------------------===//
#include "onnx_kernels_impl.h"
#include "onnx_tensor.h"

#include "quarry/core/error.h"

#include <algorithm>
#include <cmath>

namespace quarry::onnx_io::kernels {

//===----------------------------------------------------------------------===//
// CumSum
//===----------------------------------------------------------------------===//

/// The running sums of x along axis (input 1), from the back with reverse,
/// each without its own element with exclusive; each partial sum rounded
/// to x's element type (float16 sums as float16 does).
std::vector<HeldValue> cum_sum(const onnx::NodeProto &n, const Inputs &in) {
  check_input_count(in, 2);
  const HeldValue &xv = required_input(in, 0, "x");
  const Tensor<float> &x = xv.value;
  const int64_t axis_given = single_int(required_input(in, 1, "axis"), "axis");
  const int axis = normalized_axis(axis_given, x.shape, "x");
  const bool exclusive = int_attr(n, "exclusive", 0) != 0;
  const bool reverse = int_attr(n, "reverse", 0) != 0;
  const int64_t length = x.shape[axis];
  const int64_t outer = x.numel() == 0 ? 0 : span_elements(x.shape, 0, axis);
  const int64_t inner = span_elements(x.shape, axis + 1, x.shape.rank());
  std::vector<float> out(x.data.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      float sum = 0.0f;
      for (int64_t j = 0; j < length; ++j) {
        const int64_t l = reverse ? length - 1 - j : j;
        const int64_t at = (o * length + l) * inner + i;
        if (exclusive)
          out[at] = sum;
        // The first sum is the element itself, as numpy's cumsum starts
        // (-0 stays -0).
        sum = j == 0 ? x[at] : round_to(xv.elem, sum + x[at]);
        if (!exclusive)
          out[at] = sum;
      }
    }
  return {make_value(x.shape, std::move(out), xv.elem)};
}

//===----------------------------------------------------------------------===//
// Trilu
//===----------------------------------------------------------------------===//

/// The upper (or lower) triangle of each matrix of the last two axes, from
/// diagonal k (input 1, 0 without it) on: column - row >= k is kept by
/// upper=1, column - row <= k by upper=0; the rest becomes 0.
std::vector<HeldValue> trilu(const onnx::NodeProto &n, const Inputs &in) {
  check_input_count(in, 2);
  const HeldValue &xv = required_input(in, 0, "input");
  const HeldValue *kv = optional_input(in, 1);
  const int64_t k = kv ? single_int(*kv, "k") : 0;
  const Shape &s = xv.value.shape;
  const int rank = s.rank();
  if (rank < 2)
    throw Error("input must have a rank of at least 2, not " + s.str());
  const bool upper = int_attr(n, "upper", 1) != 0;
  const int64_t rows = s[rank - 2], cols = s[rank - 1];
  std::vector<float> out = xv.value.data;
  for (int64_t at = 0; at < static_cast<int64_t>(out.size()); ++at) {
    const int64_t col = at % cols, row = (at / cols) % rows;
    if (upper ? col - row < k : col - row > k)
      out[at] = 0.0f;
  }
  return {make_value(s, std::move(out), xv.elem)};
}

//===----------------------------------------------------------------------===//
// EyeLike
//===----------------------------------------------------------------------===//

/// A matrix of input's 2-D shape, ones on diagonal k and zeros elsewhere,
/// of element type dtype (else input's).
std::vector<HeldValue> eye_like(const onnx::NodeProto &n, const Inputs &in) {
  check_input_count(in, 1);
  const HeldValue &xv = required_input(in, 0, "input");
  const Shape &s = xv.value.shape;
  if (s.rank() != 2)
    throw Error("input must be 2-D, not " + s.str());
  const int32_t elem = elem_attr(n, "dtype", xv.elem);
  const int64_t k = int_attr(n, "k", 0);
  const int64_t rows = s[0], cols = s[1];
  std::vector<float> out(static_cast<size_t>(output_elements(s.dims)), 0.0f);
  if (k < cols && k > -rows)
    for (int64_t row = std::max<int64_t>(0, -k); row < rows && row + k < cols;
         ++row)
      out[row * cols + row + k] = 1.0f;
  return {make_value(s, std::move(out), elem)};
}

//===----------------------------------------------------------------------===//
// ReverseSequence
//===----------------------------------------------------------------------===//

/// Each batch entry's first sequence_lens[b] elements along time_axis in
/// reverse order, the rest as they were.
std::vector<HeldValue> reverse_sequence(const onnx::NodeProto &n,
                                        const Inputs &in) {
  check_input_count(in, 2);
  const HeldValue &xv = required_input(in, 0, "input");
  const Tensor<float> &x = xv.value;
  const Tensor<float> &lens = required_input(in, 1, "sequence_lens").value;
  if (x.shape.rank() < 2)
    throw Error("input of " + x.shape.str() + " has no batch and time axes");
  const int64_t batch_axis = int_attr(n, "batch_axis", 1);
  const int64_t time_axis = int_attr(n, "time_axis", 0);
  if (!((batch_axis == 0 && time_axis == 1) ||
        (batch_axis == 1 && time_axis == 0)))
    throw Error("batch_axis and time_axis must be 0 and 1, one each");
  const int64_t batches = x.shape[static_cast<int>(batch_axis)];
  const int64_t steps = x.shape[static_cast<int>(time_axis)];
  if (lens.shape.dims != std::vector<int64_t>{batches})
    throw Error("sequence_lens of " + lens.shape.str() + " is not [" +
                std::to_string(batches) + "], one per batch entry");
  const int64_t inner = span_elements(x.shape, 2, x.shape.rank());
  std::vector<float> out(x.data);
  for (int64_t b = 0; b < batches; ++b) {
    const int64_t len = saturate_int(lens.data[b]);
    if (len < 0 || len > steps)
      throw Error("sequence_lens holds " + std::to_string(len) +
                  ", not from 0 to the " + std::to_string(steps) + " steps");
    for (int64_t t = 0; t < len; ++t) {
      const int64_t from = len - 1 - t;
      // Element (batch b, step t) of the first two axes, in either order.
      const auto at = [&](int64_t step) {
        return (batch_axis == 0 ? b * steps + step : step * batches + b) *
               inner;
      };
      std::copy_n(x.data.begin() + at(from), inner, out.begin() + at(t));
    }
  }
  return {make_value(x.shape, std::move(out), xv.elem)};
}

//===----------------------------------------------------------------------===//
// IsInf, IsNaN
//===----------------------------------------------------------------------===//

/// Whether each element of X is infinite: bool, counting +inf where
/// detect_positive and -inf where detect_negative (both by default).
std::vector<HeldValue> is_inf(const onnx::NodeProto &n, const Inputs &in) {
  check_input_count(in, 1);
  const Tensor<float> &x = required_input(in, 0, "X").value;
  const bool positive = int_attr(n, "detect_positive", 1) != 0;
  const bool negative = int_attr(n, "detect_negative", 1) != 0;
  std::vector<float> out(x.data.size());
  for (size_t i = 0; i < out.size(); ++i) {
    const float v = x.data[i];
    out[i] = std::isinf(v) && (v > 0 ? positive : negative) ? 1.0f : 0.0f;
  }
  return {make_value(x.shape, std::move(out), kBool)};
}

/// Whether each element of X is NaN: bool.
std::vector<HeldValue> is_nan(const Inputs &in) {
  check_input_count(in, 1);
  const Tensor<float> &x = required_input(in, 0, "X").value;
  std::vector<float> out(x.data.size());
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = std::isnan(x.data[i]) ? 1.0f : 0.0f;
  return {make_value(x.shape, std::move(out), kBool)};
}

} // namespace quarry::onnx_io::kernels
