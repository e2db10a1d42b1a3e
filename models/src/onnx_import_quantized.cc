//===- onnx_import_quantized.cc - QuantizeLinear and DequantizeLinear -----===//
//
// A quantized model in ONNX's QDQ form computes in float around pairs of
// QuantizeLinear and DequantizeLinear. quarry holds the quantized integers
// as float32 (exact: at most 16 bits) and states each operator with the
// float ones it has, as ONNX defines it:
//   QuantizeLinear    y = clamp(round(x / scale) + zero_point, type's range)
//   DequantizeLinear  y = (x - zero_point) * scale
// with round's halves to even, and scale and zero point per tensor or per
// slice along `axis`. Quantized weights fold to float constants; on
// activations the pair stays in the graph, where `round` is float-only and
// so a boundary no rule rewrites across.
//
//===----------------------------------------------------------------------===//
#include "onnx_attrs.h"
#include "onnx_importer.h"
#include "onnx_kept.h"

#include <cmath>

namespace quarry::onnx_io {

namespace {

using I = Importer;
using Ints = std::vector<int64_t>;
using ops::BroadcastFn;
using TP = onnx::TensorProto;

/// Input `i` (a scale or zero point: one value, or one per slice along
/// the node's axis of input 0) shaped to broadcast against input 0.
ValueRef per_axis(I &m, int i) {
  const ValueRef v = m.in(i);
  const Shape sx = m.input_shape(0), sv = m.shape(v);
  if (sv.rank() == 0 || (sv.rank() == 1 && sv[0] == 1))
    return v;
  if (sv.rank() != 1)
    m.fail("input " + std::to_string(i) + " " + sv.str() +
           " is neither one value nor one per slice (blocked quantization "
           "is not supported)");
  const int axis = m.axis(m.attr_int("axis", 1), sx.rank());
  if (sx[axis] != sv[0])
    m.fail("input " + std::to_string(i) + " holds " + std::to_string(sv[0]) +
           " values for axis " + std::to_string(axis) + " of extent " +
           std::to_string(sx[axis]));
  Ints dims(static_cast<size_t>(sx.rank()), 1);
  dims[static_cast<size_t>(axis)] = sv[0];
  return reshape_to(m, v, dims);
}

ValueRef scalar(I &m, float v) {
  return m.constant_weight(m.node().output(0) + "_bound",
                           Tensor<float>(Shape{}, v));
}

ValueRef clamp(I &m, ValueRef x, float lo, float hi) {
  x = binary(m, BroadcastFn::Max, x, scalar(m, lo));
  return binary(m, BroadcastFn::Min, x, scalar(m, hi));
}

/// The quantized type of a QuantizeLinear's output: its zero point's, else
/// uint8.
int32_t quantized_type(I &m) {
  if (const Constant *zp = m.const_in(2))
    return zp->elem;
  return m.has_input(2) ? m.held_elem(2) : TP::UINT8;
}

void quantize_linear(I &m) {
  const int32_t type = quantized_type(m);
  float lo, hi;
  switch (type) {
  case TP::UINT8:
    lo = 0, hi = 255;
    break;
  case TP::INT8:
    lo = -128, hi = 127;
    break;
  case TP::UINT16:
    lo = 0, hi = 65535;
    break;
  case TP::INT16:
    lo = -32768, hi = 32767;
    break;
  default:
    m.fail("quantizing to " + elem_type_name(type) +
           " is not supported (8- and 16-bit integers are)");
  }
  ValueRef y = pointwise(m, ops::PointwiseFn::Round,
                         binary(m, BroadcastFn::Div, m.in(0), per_axis(m, 1)));
  if (m.has_input(2))
    y = binary(m, BroadcastFn::Add, y, per_axis(m, 2));
  m.set_output(0, clamp(m, y, lo, hi));
  m.set_held_output(0, type);
}

void dequantize_linear(I &m) {
  ValueRef x = m.in(0);
  if (m.has_input(2))
    x = binary(m, BroadcastFn::Sub, x, per_axis(m, 2));
  m.set_output(0, binary(m, BroadcastFn::Mul, x, per_axis(m, 1)));
}

/// DynamicQuantizeLinear: uint8 over the range of x and 0, as ONNX
/// defines it; its three outputs y, scale and zero point.
void dynamic_quantize_linear(I &m) {
  const ValueRef x = m.in(0);
  Ints all;
  for (int i = 0; i < m.shape(x).rank(); ++i)
    all.push_back(i);
  auto extreme = [&](ops::ReduceFn fn, BroadcastFn with_zero) {
    return binary(m, with_zero, reduce_over(m, fn, x, all, false),
                  scalar(m, 0.0f));
  };
  const ValueRef lo = extreme(ops::ReduceFn::Min, BroadcastFn::Min),
                 hi = extreme(ops::ReduceFn::Max, BroadcastFn::Max);
  const ValueRef scale =
      binary(m, BroadcastFn::Div, binary(m, BroadcastFn::Sub, hi, lo),
             scalar(m, 255.0f));
  const ValueRef zp = pointwise(
      m, ops::PointwiseFn::Round,
      clamp(m,
            binary(m, BroadcastFn::Div,
                   binary(m, BroadcastFn::Sub, scalar(m, 0.0f), lo), scale),
            0, 255));
  const ValueRef y =
      clamp(m,
            binary(m, BroadcastFn::Add,
                   pointwise(m, ops::PointwiseFn::Round,
                             binary(m, BroadcastFn::Div, x, scale)),
                   zp),
            0, 255);
  m.set_output(0, y);
  m.set_held_output(0, TP::UINT8);
  m.set_output(1, scale);
  m.set_output(2, zp);
  m.set_held_output(2, TP::UINT8);
}

/// ConvInteger and MatMulInteger: `float_op` of each operand less its
/// zero point (per tensor, or per output channel or row/column), exact in
/// float32 while the sums stay below 2^24; the int32 result held as
/// float32.
Handler integer_product(const std::string &float_op) {
  return [float_op](I &m) {
    onnx::NodeProto n = m.node();
    n.set_op_type(float_op);
    const bool conv = float_op == "Conv";
    for (int i = 0; i < 2; ++i) {
      ValueRef v = m.in(i);
      if (m.has_input(i + 2)) {
        ValueRef zp = m.in(i + 2);
        const Shape sz = m.shape(zp), sv = m.shape(v);
        // Per channel (the kernel's first axis) or per row of A.
        if (sz.rank() == 1 && sz[0] > 1 && (conv ? i == 1 : i == 0)) {
          Ints dims(static_cast<size_t>(sv.rank()), 1);
          dims[conv ? 0 : static_cast<size_t>(sv.rank() - 2)] = sz[0];
          zp = reshape_to(m, zp, dims);
        }
        v = binary(m, BroadcastFn::Sub, v, zp);
      }
      const std::string name = n.output(0) + "#operand" + std::to_string(i);
      m.define(name, v);
      n.set_input(i, name);
    }
    n.mutable_input()->DeleteSubrange(2, n.input_size() - 2);
    n.set_output(0, n.output(0) + "#float");
    m.run_as(n, onnx_handlers().at(float_op));
    m.set_output(0, m.value(n.output(0)));
    m.set_held_output(0, TP::INT32);
  };
}

/// QLinearConv and QLinearMatMul: the operands dequantized (the kernel per
/// output channel, the bias at the product of the two scales), `float_op`,
/// and the result quantized at the output's scale and zero point, as
/// ONNX's integer arithmetic gives them but for float32's rounding of the
/// rescale. Inputs: a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp[, B].
Handler linear_product(const std::string &float_op) {
  return [float_op](I &m) {
    const onnx::NodeProto &node = m.node();
    if (node.input_size() < 8)
      m.fail("it takes at least 8 inputs, not " +
             std::to_string(node.input_size()));
    const std::string base = node.output(0) + "#";
    const bool conv = float_op == "Conv";
    run_node(m, "DequantizeLinear",
             {node.input(0), node.input(1), node.input(2)}, base + "a");
    run_node(m, "DequantizeLinear",
             {node.input(3), node.input(4), node.input(5)}, base + "b",
             {make_attr("axis", int64_t{conv ? 0 : -1})});
    std::vector<std::string> operands{base + "a", base + "b"};
    if (m.has_input(8)) { // int32 bias at scale a_scale * b_scale
      const ValueRef scale = binary(m, BroadcastFn::Mul, m.in(1), m.in(4));
      m.define(base + "bias", binary(m, BroadcastFn::Mul, m.in(8), scale));
      operands.push_back(base + "bias");
    }
    std::vector<onnx::AttributeProto> attrs;
    if (conv)
      attrs.assign(node.attribute().begin(), node.attribute().end());
    run_node(m, float_op, operands, base + "float", attrs);
    m.set_output(0, run_node(m, "QuantizeLinear",
                             {base + "float", node.input(6), node.input(7)},
                             base + "y"));
    m.set_held_output(0, m.held_elem(7) ? m.held_elem(7) : TP::UINT8);
  };
}

} // namespace

std::string Importer::invalid_quantization() const {
  const onnx::NodeProto &n = *node_;
  if (!default_domain(n.domain()))
    return "";
  const std::string &op = n.op_type();
  // The scales the node divides by, and (zero point, operand) pairs of one
  // type: QuantizeLinear's zero point gives its output's type instead.
  std::vector<int> divisors;
  std::vector<std::pair<int, int>> same_type;
  if (op == "QuantizeLinear") {
    divisors = {1};
  } else if (op == "DequantizeLinear") {
    same_type = {{2, 0}};
  } else if (op == "QLinearConv" || op == "QLinearMatMul") {
    divisors = {6};
    same_type = {{2, 0}, {5, 3}};
  } else if (op == "ConvInteger" || op == "MatMulInteger") {
    same_type = {{2, 0}, {3, 1}};
  } else {
    return "";
  }
  auto elem_of = [&](int i) -> int32_t {
    if (const Constant *c = const_in(i))
      return c->elem;
    return held_elem(i);
  };
  for (int i : divisors)
    if (const Constant *scale = const_in(i))
      for (double s : scale->reals)
        if (!(s > 0) || !std::isfinite(s))
          return "input " + std::to_string(i) + " is a scale of " +
                 std::to_string(s) + ", which it divides by (scales are " +
                 "positive and finite)";
  for (const auto &[zp, operand] : same_type) {
    if (!has_input(zp))
      continue;
    const int32_t z = elem_of(zp), x = elem_of(operand);
    if (z != 0 && held_as_float(z))
      return "its zero point (input " + std::to_string(zp) +
             ") is of element type " + elem_type_name(z) +
             ", not an integer type";
    if (z != 0 && x != 0 && z != x)
      return "its zero point (input " + std::to_string(zp) + ") is " +
             elem_type_name(z) + " but input " + std::to_string(operand) +
             " is " + elem_type_name(x) + " (they must be of one type)";
  }
  return "";
}

void add_quantized_handlers(
    std::map<std::string, Handler, std::less<>> &table) {
  table.emplace("QuantizeLinear", quantize_linear);
  table.emplace("DequantizeLinear", dequantize_linear);
  table.emplace("DynamicQuantizeLinear", dynamic_quantize_linear);
  table.emplace("ConvInteger", integer_product("Conv"));
  table.emplace("MatMulInteger", integer_product("MatMul"));
  table.emplace("QLinearConv", linear_product("Conv"));
  table.emplace("QLinearMatMul", linear_product("MatMul"));
}

} // namespace quarry::onnx_io
