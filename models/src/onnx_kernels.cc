//===- onnx_kernels.cc - quarry's kernels for kept ONNX operators ---------===//
//
// Each kernel follows ONNX's reference implementation (onnx/reference/ops),
// which mirrors ONNX Runtime's CPU kernels: the same order of selection,
// the same tie-breaking, and float32 arithmetic in the same order, so that
// a model's outputs match what those runtimes give. This file holds the
// dispatch, what the kernels share, and NonZero and TopK; the other
// families have files of their own (onnx_kernels_impl.h).
//
//===----------------------------------------------------------------------===//
#include "onnx_kernels.h"
#include "onnx_kernels_impl.h"
#include "onnx_tensor.h"

#include "quarry/core/error.h"
#include "quarry/core/memory_limit.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <sstream>
#include <string_view>

namespace quarry::onnx_io {

namespace kernels {

//===----------------------------------------------------------------------===//
// Attributes and operands
//===----------------------------------------------------------------------===//

namespace {

/// Whether `a` holds a value of type `t`; models written before attribute
/// types were required leave it UNDEFINED.
bool attr_is(const onnx::AttributeProto &a,
             onnx::AttributeProto::AttributeType t) {
  return a.type() == t || a.type() == onnx::AttributeProto::UNDEFINED;
}

} // namespace

int64_t int_attr(const onnx::NodeProto &n, std::string_view name,
                 int64_t fallback) {
  const auto *a = find_attr(n, name);
  if (!a)
    return fallback;
  if (!attr_is(*a, onnx::AttributeProto::INT))
    throw Error("attribute '" + std::string(name) + "' must be an int");
  return a->i();
}

float float_attr(const onnx::NodeProto &n, std::string_view name,
                 float fallback) {
  const auto *a = find_attr(n, name);
  if (!a)
    return fallback;
  if (!attr_is(*a, onnx::AttributeProto::FLOAT))
    throw Error("attribute '" + std::string(name) + "' must be a float");
  return a->f();
}

std::string string_attr(const onnx::NodeProto &n, std::string_view name,
                        const std::string &fallback) {
  const auto *a = find_attr(n, name);
  if (!a)
    return fallback;
  if (!attr_is(*a, onnx::AttributeProto::STRING))
    throw Error("attribute '" + std::string(name) + "' must be a string");
  return a->s();
}

std::vector<int64_t> ints_attr(const onnx::NodeProto &n,
                               std::string_view name) {
  const auto *a = find_attr(n, name);
  if (!a)
    return {};
  if (!attr_is(*a, onnx::AttributeProto::INTS))
    throw Error("attribute '" + std::string(name) + "' must be integers");
  return {a->ints().begin(), a->ints().end()};
}

int32_t elem_attr(const onnx::NodeProto &n, std::string_view name,
                  int32_t fallback) {
  const int64_t elem = int_attr(n, name, fallback);
  if (elem <= 0 || elem > std::numeric_limits<int32_t>::max() ||
      !decodable(static_cast<int32_t>(elem)))
    throw Error(std::string(name) + " " + std::to_string(elem) +
                " is not an element type quarry holds");
  return static_cast<int32_t>(elem);
}

/// Input `i` of `in`, or nullptr where the node leaves it out.
const HeldValue *optional_input(const Inputs &in, size_t i) {
  const HeldValue *v = i < in.size() ? in[i] : nullptr;
  if (v) {
    // Every kernel indexes data by its shape: a value whose data is
    // another size would read outside it.
    for (int64_t d : v->value.shape.dims)
      if (d < 0)
        throw Error("operand " + std::to_string(i) + " has shape " +
                    v->value.shape.str() + ", with a negative dimension");
    if (v->value.numel() != v->value.shape.numel())
      throw Error("operand " + std::to_string(i) + " of shape " +
                  v->value.shape.str() + " holds " +
                  std::to_string(v->value.numel()) + " values");
  }
  return v;
}

const HeldValue &required_input(const Inputs &in, size_t i, const char *name) {
  const HeldValue *v = optional_input(in, i);
  if (!v)
    throw Error(std::string("input ") + name + " is missing");
  return *v;
}

void check_input_count(const Inputs &in, size_t most) {
  if (in.size() > most)
    throw Error("takes at most " + std::to_string(most) + " inputs, not " +
                std::to_string(in.size()));
}

/// `v` as a message shows it: "3", "0.5", "nan".
std::string number(float v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

/// `v`, an integer held as float32, as an int64; saturating, since a float
/// of 2^63 (how int64's largest value rounds) does not fit.
int64_t saturate_int(float v) {
  constexpr float kTop = 9223372036854775808.0f; // 2^63
  if (v >= kTop)
    return std::numeric_limits<int64_t>::max();
  if (v <= -kTop)
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

/// The one value of `v`, an integer operand such as K.
int64_t single_int(const HeldValue &v, const char *name) {
  if (v.value.numel() != 1)
    throw Error(std::string(name) + " must hold one value, not " +
                std::to_string(v.value.numel()) + " (shape " +
                v.value.shape.str() + ")");
  float x = v.value[0];
  if (!std::isfinite(x) || x != std::trunc(x))
    throw Error(std::string(name) + " must be an integer, not " + number(x));
  return saturate_int(x);
}

int normalized_axis(int64_t axis, const Shape &shape, const char *name,
                    bool negative) {
  const int rank = shape.rank();
  if (axis < (negative ? -rank : 0) || axis >= rank)
    throw Error("axis " + std::to_string(axis) + " is out of range for " +
                name + " of " + shape.str() +
                (axis < 0 && !negative && axis >= -rank
                     ? " (negative axes need a later opset)"
                     : ""));
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

int64_t output_elements(const std::vector<int64_t> &dims) {
  if (std::find(dims.begin(), dims.end(), 0) != dims.end())
    return 0;
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d > kMostOutputElements / count)
      throw Error("the output would be " + Shape(dims).str() +
                  ", more than 2^31 elements");
    count *= d;
  }
  // Sized before it is allocated: a value-dependent output the machine or
  // `ulimit -v` cannot hold is refused, not killed.
  refuse_past(allocatable_memory(), static_cast<uint64_t>(count) * 4,
              "the output " + Shape(dims).str());
  return count;
}

int64_t span_elements(const Shape &s, int first, int last) {
  // Dimensions of a value whose data is held multiply to no more than its
  // size, unless one is 0 (when the others may be anything).
  if (std::find(s.dims.begin() + first, s.dims.begin() + last, 0) !=
      s.dims.begin() + last)
    return 0;
  int64_t count = 1;
  for (int d = first; d < last; ++d)
    count *= s[d];
  return count;
}

HeldValue make_value(Shape shape, std::vector<float> data, int32_t elem) {
  return HeldValue{Tensor<float>(std::move(shape), std::move(data)), elem};
}

} // namespace kernels

namespace {

using namespace kernels;

//===----------------------------------------------------------------------===//
// NonZero
//===----------------------------------------------------------------------===//

/// The coordinates of X's nonzero elements (NaN counts as nonzero, as in
/// numpy), one column each in row-major order: int64 [rank, count]. A
/// scalar gives [0, count], as ONNX's reference does.
std::vector<HeldValue> non_zero(const Inputs &in) {
  check_input_count(in, 1);
  const Tensor<float> &x = required_input(in, 0, "X").value;
  std::vector<int64_t> hits;
  for (int64_t i = 0; i < x.numel(); ++i)
    if (x[i] != 0.0f)
      hits.push_back(i);
  const int rank = x.shape.rank();
  const auto count = static_cast<int64_t>(hits.size());
  std::vector<float> out(static_cast<size_t>(rank) * hits.size());
  const std::vector<int64_t> strides = x.shape.strides();
  for (int64_t j = 0; j < count; ++j) {
    int64_t rest = hits[j];
    for (int d = 0; d < rank; ++d) {
      out[d * count + j] = static_cast<float>(rest / strides[d]);
      rest %= strides[d];
    }
  }
  return {make_value(Shape{rank, count}, std::move(out), kInt64)};
}

//===----------------------------------------------------------------------===//
// TopK
//===----------------------------------------------------------------------===//

/// `v`'s place when sorting by size, as an unsigned integer that orders
/// so: -0 and 0 alike, every NaN alike and above every number, as numpy's
/// sort (which ONNX's reference uses) places it.
uint32_t size_rank(float v) {
  if (std::isnan(v))
    return UINT32_MAX;
  uint32_t bits;
  const float zeroed = v == 0.0f ? 0.0f : v;
  std::memcpy(&bits, &zeroed, sizeof bits);
  return bits & 0x80000000u ? ~bits : bits | 0x80000000u;
}

/// K: input 1 from opset 10, attribute `k` before.
int64_t top_k_count(const onnx::NodeProto &n, const Inputs &in) {
  if (const HeldValue *k = optional_input(in, 1))
    return single_int(*k, "K");
  if (find_attr(n, "k"))
    return int_attr(n, "k", 0);
  throw Error("input K is missing");
}

/// The K largest (or smallest) elements along `axis` and their indices,
/// sorted, equal values by lower index first (ONNX's reference breaks ties
/// so). With sorted=0 ONNX leaves the order open; sorting is conformant.
std::vector<HeldValue> top_k(const onnx::NodeProto &n, const Inputs &in) {
  check_input_count(in, 2);
  const HeldValue &xv = required_input(in, 0, "X");
  const Tensor<float> &x = xv.value;
  const int64_t k = top_k_count(n, in);
  const int rank = x.shape.rank();
  const int axis = normalized_axis(int_attr(n, "axis", -1), x.shape, "X");
  const bool largest = int_attr(n, "largest", 1) != 0;
  const int64_t length = x.shape[axis];
  if (k < 0 || k > length)
    throw Error("K must be between 0 and " + std::to_string(length) +
                " (the length of axis " + std::to_string(axis) + " of X " +
                x.shape.str() + "), not " + std::to_string(k));

  // With no elements there is nothing to select (and the output has none).
  const int64_t outer = x.numel() == 0 ? 0 : span_elements(x.shape, 0, axis);
  const int64_t inner = span_elements(x.shape, axis + 1, rank);
  Shape out_shape = x.shape;
  out_shape[axis] = k;
  if (length > int64_t{UINT32_MAX})
    throw Error("axis " + std::to_string(axis) + " of X " + x.shape.str() +
                " is longer than TopK's index takes (2^32)");
  std::vector<float> values(static_cast<size_t>(out_shape.numel()));
  std::vector<float> indices(values.size());
  std::vector<uint64_t> order(static_cast<size_t>(length));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t l) { return x[(o * length + l) * inner + i]; };
      // Each element as one integer: its rank by `above` (first in
      // ascending order), then its index, which makes the order total, so
      // the first K after nth_element and a sort are a stable sort's.
      for (int64_t l = 0; l < length; ++l) {
        const uint32_t rank = size_rank(at(l));
        order[l] =
            uint64_t{largest ? ~rank : rank} << 32 | static_cast<uint32_t>(l);
      }
      if (k < length)
        std::nth_element(order.begin(), order.begin() + k, order.end());
      std::sort(order.begin(), order.begin() + k);
      for (int64_t j = 0; j < k; ++j) {
        const auto from = static_cast<int64_t>(order[j] & UINT32_MAX);
        int64_t to = (o * k + j) * inner + i;
        values[to] = at(from);
        indices[to] = static_cast<float>(from);
      }
    }
  std::vector<HeldValue> out;
  out.push_back(make_value(out_shape, std::move(values), xv.elem));
  out.push_back(make_value(out_shape, std::move(indices), kInt64));
  return out;
}

} // namespace

bool has_kernel(const std::string &op_type) {
  // clang-format off
  static const char *const kOperators[] = {
      "NonZero", "TopK", "NonMaxSuppression", "RoiAlign", "ArgMax", "ArgMin",
      "GatherND", "Compress", "OneHot", "Unique", "CumSum", "Trilu",
      "EyeLike", "ReverseSequence", "IsInf", "IsNaN", "Det", "HannWindow",
      "HammingWindow", "BlackmanWindow", "NegativeLogLikelihoodLoss",
      "SoftmaxCrossEntropyLoss",
      "Cast", "CastLike", "Gather", "Add", "Sub", "Mul", "Div", "Mod",
      "BitShift", "ScatterElements", "Scatter", "ScatterND", "MaxUnpool",
      "MaxPool"};
  // clang-format on
  return std::find(std::begin(kOperators), std::end(kOperators), op_type) !=
         std::end(kOperators);
}

std::vector<HeldValue> run_kernel(const onnx::NodeProto &n, int64_t opset,
                                  const std::vector<const HeldValue *> &in) {
  const std::string &op = n.op_type();
  if (op == "NonZero")
    return non_zero(in);
  if (op == "TopK")
    return top_k(n, in);
  if (op == "NonMaxSuppression")
    return non_max_suppression(n, in);
  if (op == "RoiAlign")
    return roi_align(n, opset, in);
  if (op == "ArgMax" || op == "ArgMin")
    return arg_extreme(n, opset, in, op == "ArgMax");
  if (op == "GatherND")
    return gather_nd(n, in);
  if (op == "Compress")
    return compress(n, opset, in);
  if (op == "OneHot")
    return one_hot(n, opset, in);
  if (op == "Unique")
    return unique(n, in);
  if (op == "CumSum")
    return cum_sum(n, in);
  if (op == "Trilu")
    return trilu(n, in);
  if (op == "EyeLike")
    return eye_like(n, in);
  if (op == "IsInf")
    return is_inf(n, in);
  if (op == "IsNaN")
    return is_nan(in);
  if (op == "ReverseSequence")
    return reverse_sequence(n, in);
  if (op == "Det")
    return det(in);
  // ONNX's coefficients: Hamming's are 25/46 and 21/46.
  if (op == "HannWindow")
    return window(n, in, 0.5, 0.5, 0);
  if (op == "HammingWindow")
    return window(n, in, 25.0 / 46.0, 21.0 / 46.0, 0);
  if (op == "BlackmanWindow")
    return window(n, in, 0.42, 0.5, 0.08);
  if (op == "NegativeLogLikelihoodLoss")
    return negative_log_likelihood_loss(n, in);
  if (op == "SoftmaxCrossEntropyLoss")
    return softmax_cross_entropy_loss(n, in);
  if (op == "ScatterElements" || op == "Scatter")
    return scatter_elements(n, opset, in);
  if (op == "ScatterND")
    return scatter_nd(n, opset, in);
  if (op == "MaxUnpool")
    return max_unpool(n, in);
  if (op == "MaxPool")
    return max_pool(n, in);
  if (op == "Cast" || op == "CastLike")
    return cast(n, in, op == "CastLike");
  if (op == "Gather")
    return gather(n, in);
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Mod" ||
      op == "BitShift")
    return binary(n, in);
  throw Error("quarry has no kernel for operator " + op);
}

} // namespace quarry::onnx_io
