//===- onnx_kernels_arith.cc - Cast, Gather and integer arithmetic --------===//
//
// What a detection model's post-processing computes on the integers its
// TopK and NonZero give: indices divided and reduced by the class count,
// gathered, cast. quarry's algebra holds floats; kept as ONNX, these run
// here on every run, so they must not be an import each time. Integers are
// computed as int64 and wrapped to their type's width, as ONNX's integer
// arithmetic wraps (a BitShift's too); floats in float32.
//
//===----------------------------------------------------------------------===//
#include "onnx_kernels_impl.h"
#include "onnx_tensor.h"

#include "quarry/core/error.h"
#include "quarry/core/ops/broadcast.h"

#include <cmath>
#include <cstdint>

namespace quarry::onnx_io::kernels {

namespace {

/// `v` wrapped to the width of integer type `elem`, as its arithmetic
/// wraps in ONNX (two's complement).
int64_t wrapped(int32_t elem, int64_t v) {
  switch (elem) {
  case onnx::TensorProto::INT8:
    return static_cast<int8_t>(v);
  case onnx::TensorProto::UINT8:
    return static_cast<uint8_t>(v);
  case onnx::TensorProto::INT16:
    return static_cast<int16_t>(v);
  case onnx::TensorProto::UINT16:
    return static_cast<uint16_t>(v);
  case onnx::TensorProto::INT32:
    return static_cast<int32_t>(v);
  case onnx::TensorProto::UINT32:
    return static_cast<uint32_t>(v);
  default:
    return v;
  }
}

/// A float's value as integer type `elem` takes it in a Cast: truncated
/// toward zero, then wrapped; NaN is 0.
int64_t as_integer(int32_t elem, float x) {
  if (std::isnan(x))
    return 0;
  return wrapped(elem, saturate_int(std::trunc(x)));
}

} // namespace

std::vector<HeldValue> cast(const onnx::NodeProto &n, const Inputs &in,
                            bool like) {
  check_input_count(in, like ? 2 : 1);
  const HeldValue &x = required_input(in, 0, "input");
  const int32_t to = like ? required_input(in, 1, "target_type").elem
                          : static_cast<int32_t>(int_attr(n, "to", 0));
  std::vector<float> out(x.value.data.size());
  for (size_t i = 0; i < out.size(); ++i) {
    const float v = x.value.data[i];
    if (to == onnx::TensorProto::BOOL)
      out[i] = v != 0 ? 1.0f : 0.0f;
    else if (integral(to))
      out[i] = static_cast<float>(as_integer(to, v));
    else if (to == onnx::TensorProto::FLOAT ||
             to == onnx::TensorProto::DOUBLE ||
             to == onnx::TensorProto::FLOAT16 ||
             to == onnx::TensorProto::BFLOAT16)
      out[i] = round_to(to, v);
    else
      throw Error("a Cast to element type " + std::to_string(to) +
                  " is not one quarry holds");
  }
  return {make_value(x.value.shape, std::move(out), to)};
}

std::vector<HeldValue> gather(const onnx::NodeProto &n, const Inputs &in) {
  check_input_count(in, 2);
  const HeldValue &data = required_input(in, 0, "data");
  const HeldValue &indices = required_input(in, 1, "indices");
  const Shape &ds = data.value.shape;
  if (ds.rank() == 0)
    throw Error("data must have at least one axis");
  const int axis = normalized_axis(int_attr(n, "axis", 0), ds, "data");
  std::vector<int64_t> dims(ds.dims.begin(), ds.dims.begin() + axis);
  dims.insert(dims.end(), indices.value.shape.dims.begin(),
              indices.value.shape.dims.end());
  dims.insert(dims.end(), ds.dims.begin() + axis + 1, ds.dims.end());
  const int64_t outer = span_elements(ds, 0, axis),
                inner = span_elements(ds, axis + 1, ds.rank()),
                extent = ds[axis];
  std::vector<float> out(static_cast<size_t>(output_elements(dims)));
  const int64_t count = indices.value.numel();
  for (int64_t k = 0; k < count; ++k) {
    int64_t at = saturate_int(indices.value[k]);
    if (at < -extent || at >= extent)
      throw Error("index " + std::to_string(at) + " is out of range for axis " +
                  std::to_string(axis) + " of data " + ds.str());
    if (at < 0)
      at += extent;
    for (int64_t o = 0; o < outer; ++o)
      std::copy_n(data.value.data.begin() + (o * extent + at) * inner, inner,
                  out.begin() + (o * count + k) * inner);
  }
  return {make_value(Shape(dims), std::move(out), data.elem)};
}

std::vector<HeldValue> binary(const onnx::NodeProto &n, const Inputs &in) {
  check_input_count(in, 2);
  const HeldValue &a = required_input(in, 0, "A");
  const HeldValue &b = required_input(in, 1, "B");
  if (a.elem != b.elem)
    throw Error("its operands are of element types " + std::to_string(a.elem) +
                " and " + std::to_string(b.elem));
  const std::string &op = n.op_type();
  const Shape s = ops::broadcast_shape(op, a.value.shape, b.value.shape);
  const auto sa = ops::broadcast_strides(a.value.shape, s),
             sb = ops::broadcast_strides(b.value.shape, s);
  std::vector<float> out(static_cast<size_t>(output_elements(s.dims)));
  const bool ints = integral(a.elem);
  const bool fmod = int_attr(n, "fmod", 0) != 0;
  if (op == "Mod" && !ints && !fmod)
    throw Error("Mod of floats needs fmod=1");
  const bool left = string_attr(n, "direction", "") == "LEFT";
  if (op == "BitShift") {
    using TP = onnx::TensorProto;
    if (a.elem != TP::UINT8 && a.elem != TP::UINT16 && a.elem != TP::UINT32 &&
        a.elem != TP::UINT64)
      throw Error("BitShift takes unsigned integers, not element type " +
                  std::to_string(a.elem));
    if (!left && string_attr(n, "direction", "") != "RIGHT")
      throw Error("direction must be \"LEFT\" or \"RIGHT\", not \"" +
                  string_attr(n, "direction", "") + "\"");
  }
  enum {
    kAdd,
    kSub,
    kMul,
    kDiv,
    kMod,
    kShift
  } const fn = op == "Add"   ? kAdd
               : op == "Sub" ? kSub
               : op == "Mul" ? kMul
               : op == "Div" ? kDiv
               : op == "Mod" ? kMod
                             : kShift;
  std::vector<int64_t> pos(s.rank(), 0);
  for (size_t k = 0; k < out.size(); ++k) {
    int64_t ia = 0, ib = 0;
    for (int d = 0; d < s.rank(); ++d) {
      ia += pos[d] * sa[d];
      ib += pos[d] * sb[d];
    }
    const float x = a.value[ia], y = b.value[ib];
    if (ints) {
      const int64_t p = saturate_int(x), q = saturate_int(y);
      int64_t r = 0;
      if ((fn == kDiv || fn == kMod) && q == 0)
        throw Error("an integer " + op + " by zero");
      if (fn == kAdd)
        r = p + q;
      else if (fn == kSub)
        r = p - q;
      else if (fn == kMul)
        r = p * q;
      else if (fn == kDiv)
        r = p / q; // truncates toward zero, as ONNX's integer division
      else if (fn == kShift)
        // Past the width every bit is shifted out (as numpy, ONNX's
        // reference); wrapped() drops what passes the type's.
        r = q < 0 || q >= 64 ? 0
            : left ? static_cast<int64_t>(static_cast<uint64_t>(p) << q)
                   : static_cast<int64_t>(static_cast<uint64_t>(p) >> q);
      else {
        r = p % q; // fmod: the sign of the dividend
        if (!fmod && r != 0 && ((r < 0) != (q < 0)))
          r += q; // the sign of the divisor, as Python's %
      }
      out[k] = static_cast<float>(wrapped(a.elem, r));
    } else {
      out[k] = fn == kAdd   ? x + y
               : fn == kSub ? x - y
               : fn == kMul ? x * y
               : fn == kDiv ? x / y
                            : std::fmod(x, y);
      out[k] = round_to(a.elem, out[k]);
    }
    for (int d = s.rank() - 1; d >= 0; --d) {
      if (++pos[d] < s[d])
        break;
      pos[d] = 0;
    }
  }
  return {make_value(s, std::move(out), a.elem)};
}

} // namespace quarry::onnx_io::kernels
