//===- onnx_import_ops.cc - One handler per supported ONNX operator -------===//
//
// Each handler maps one ONNX operator onto quarry operators: the algebra's
// where they are exact (models/ONNX.md), the float-only ones otherwise.
//
//===----------------------------------------------------------------------===//
#include "onnx_attrs.h"
#include "onnx_importer.h"
#include "onnx_names.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <numeric>
#include <span>

namespace quarry::onnx_io {

ValueRef binary(Importer &m, ops::BroadcastFn fn, ValueRef x, ValueRef y) {
  if (m.shape(x) == m.shape(y) &&
      (fn == ops::BroadcastFn::Add || fn == ops::BroadcastFn::Mul))
    return m.add(fn == ops::BroadcastFn::Add ? OpKind::EwAdd : OpKind::EwMul,
                 {x, y});
  return m.add(
      OpKind::Broadcast,
      make_attrs(OpKind::Broadcast, {{"fn", static_cast<int64_t>(fn)}}),
      {x, y});
}

ValueRef transpose(Importer &m, ValueRef x, std::vector<int64_t> perm) {
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i)
    identity = identity && perm[i] == static_cast<int64_t>(i);
  if (identity)
    return x;
  return m.add(OpKind::Transpose,
               make_attrs(OpKind::Transpose, {{"perm", std::move(perm)}}), {x});
}

namespace {

using I = Importer;
using Ints = std::vector<int64_t>;
using ops::BroadcastFn;
using ops::PointwiseFn;

int64_t product(const Shape &s, int from, int to) {
  int64_t p = 1;
  for (int i = from; i < to; ++i)
    p *= s[i];
  return p;
}

int axis_of(I &m, int64_t axis, int rank) { return m.axis(axis, rank); }

/// Reshape of input 0 to `dims`; constants fold into constants.
void reshape_to(I &m, Ints dims) {
  if (const Constant *c = m.const_in(0)) {
    Constant r = *c;
    r.shape = Shape(std::move(dims));
    if (r.shape.numel() != c->shape.numel())
      m.fail("cannot reshape constant " + c->shape.str() + " to " +
             r.shape.str());
    m.set_output_const(0, std::move(r));
    return;
  }
  m.set_output(0, m.add(OpKind::Reshape,
                        make_attrs(OpKind::Reshape, {{"shape", dims}}),
                        {m.in(0)}));
}

void identity(I &m) {
  if (const Constant *c = m.const_in(0))
    m.set_output_const(0, *c);
  else
    m.set_output(0, m.in(0));
}

Handler unary(OpKind kind) {
  return [kind](I &m) { m.set_output(0, m.add(kind, {m.in(0)})); };
}

void pointwise(I &m, PointwiseFn fn, double alpha = 0, double beta = 0) {
  m.set_output(
      0, m.add(OpKind::Pointwise,
               make_attrs(OpKind::Pointwise, {{"fn", static_cast<int64_t>(fn)},
                                              {"alpha", alpha},
                                              {"beta", beta}}),
               {m.in(0)}));
}
Handler pointwise_fn(PointwiseFn fn) {
  return [fn](I &m) { pointwise(m, fn); };
}

/// Input 1 of a binary operator, aligned for numpy broadcasting: before
/// opset 7 it broadcasts only with broadcast=1, its axes placed from
/// `axis` of input 0 on (trailing ones appended).
ValueRef second_operand(I &m, ValueRef x) {
  const ValueRef y = m.in(1);
  if (m.opset() >= 7 || m.attr_int("broadcast", 0) == 0)
    return y;
  const Shape sx = m.shape(x), sy = m.shape(y);
  const int axis = m.attr("axis") ? axis_of(m, m.attr_int("axis", 0), sx.rank())
                                  : sx.rank() - sy.rank();
  Ints dims = sy.dims;
  while (axis + static_cast<int>(dims.size()) < sx.rank())
    dims.push_back(1);
  if (Shape(dims) == sy)
    return y;
  return m.add(OpKind::Reshape, make_attrs(OpKind::Reshape, {{"shape", dims}}),
               {y});
}

Handler binary_fn(BroadcastFn fn) {
  return [fn](I &m) {
    const ValueRef x = m.in(0);
    m.set_output(0, binary(m, fn, x, second_operand(m, x)));
  };
}

/// Max and Min take one or more operands.
Handler variadic_fn(BroadcastFn fn) {
  return [fn](I &m) {
    ValueRef acc = m.in(0);
    for (int i = 1; i < m.num_inputs(); ++i)
      acc = binary(m, fn, acc, m.in(i));
    m.set_output(0, acc);
  };
}

/// Expand of a computed tensor to a constant shape: itself when nothing
/// grows, else a broadcast add of zeros (exact: x + 0 == x).
void expand(I &m) {
  const ValueRef x = m.in(0);
  const Shape sx = m.shape(x);
  const Shape target(m.need_const(1, "shape").ints);
  Shape out;
  try {
    out = ops::broadcast_shape("Expand", sx, target);
  } catch (const Error &e) {
    m.fail(e.what());
  }
  if (out == sx)
    return m.set_output(0, x);
  const ValueRef zeros = m.constant_weight(m.node().output(0) + "_zeros",
                                           Tensor<float>(out, 0.0f));
  m.set_output(0, binary(m, BroadcastFn::Add, x, zeros));
}

void matmul(I &m) {
  const ValueRef a = m.in(0), b = m.in(1);
  const Shape sa = m.shape(a), sb = m.shape(b);
  if (sa.rank() < 2 || sb.rank() < 2)
    m.fail("1-D MatMul operands are not supported");
  if (sa.rank() == sb.rank()) {
    m.set_output(0, m.add(OpKind::MatMul, {a, b}));
    return;
  }
  if (sb.rank() != 2)
    m.fail("batched MatMul needs operands of equal rank, got " + sa.str() +
           " and " + sb.str());
  // [..., m, k] x [k, n]: fold the leading axes into rows.
  const int r = sa.rank();
  const ValueRef rows =
      m.add(OpKind::Reshape,
            make_attrs(OpKind::Reshape,
                       {{"shape", Ints{product(sa, 0, r - 1), sa[r - 1]}}}),
            {a});
  Ints dims = sa.dims;
  dims.back() = sb[1];
  m.set_output(0, m.add(OpKind::Reshape,
                        make_attrs(OpKind::Reshape, {{"shape", dims}}),
                        {m.add(OpKind::MatMul, {rows, b})}));
}

ValueRef scaled(I &m, ValueRef x, float alpha) {
  if (alpha == 1.0f)
    return x;
  const ValueRef s = m.constant_weight("alpha", Tensor<float>(Shape{}, alpha));
  return m.add(OpKind::ScalarMul, {x, s});
}

void gemm(I &m) {
  ValueRef a = m.in(0), b = m.in(1);
  if (m.attr_int("transA", 0))
    a = transpose(m, a, {1, 0});
  if (m.attr_int("transB", 0))
    b = transpose(m, b, {1, 0});
  ValueRef y =
      scaled(m, m.add(OpKind::MatMul, {a, b}), m.attr_float("alpha", 1));
  if (m.has_input(2))
    y = binary(m, BroadcastFn::Add, y,
               scaled(m, m.in(2), m.attr_float("beta", 1)));
  m.set_output(0, y);
}

void concat(I &m) {
  std::vector<ValueRef> in;
  for (int i = 0; i < m.num_inputs(); ++i)
    in.push_back(m.in(i));
  if (in.size() == 1)
    return m.set_output(0, in[0]);
  // Before opset 4 the axis defaults to 1.
  const int axis = axis_of(m, m.attr_int("axis", m.opset() < 4 ? 1 : 0),
                           m.shape(in[0]).rank());
  m.set_output(0, m.add(OpKind::Concat,
                        make_attrs(OpKind::Concat, {{"axis", int64_t(axis)}}),
                        std::move(in)));
}

void split(I &m) {
  const ValueRef x = m.in(0);
  const Shape sx = m.shape(x);
  const int axis = axis_of(m, m.attr_int("axis", 0), sx.rank());
  const int parts = m.node().output_size();
  Ints sizes;
  if (m.opset() >= 13 && m.has_input(1))
    sizes = m.need_const(1, "split").ints;
  else if (auto attr = m.attr_ints("split"))
    sizes = *attr;
  else {
    if (sx[axis] % parts != 0)
      m.fail("cannot split " + sx.str() + " evenly into " +
             std::to_string(parts));
    sizes.assign(parts, sx[axis] / parts);
  }
  if (static_cast<int>(sizes.size()) != parts)
    m.fail("split sizes do not match the number of outputs");
  if (parts == 1)
    return m.set_output(0, x);
  const auto outs = m.add_multi(
      OpKind::Split,
      make_attrs(OpKind::Split, {{"axis", int64_t(axis)}, {"sizes", sizes}}),
      {x});
  for (int i = 0; i < parts; ++i)
    m.set_output(i, outs[i]);
}

void slice(I &m) {
  const ValueRef x = m.in(0);
  m.set_output(0, m.add(OpKind::Slice, slice_attrs(m, m.shape(x).rank()), {x}));
}

/// Index `j` along `axis` of `sx` made non-negative; fails naming the node
/// when it is out of range.
int64_t index_along(I &m, int64_t j, const Shape &sx, int axis) {
  if (j < -sx[axis] || j >= sx[axis])
    m.fail("index " + std::to_string(j) + " out of range for axis " +
           std::to_string(axis) + " of " + sx.str());
  return j < 0 ? j + sx[axis] : j;
}

/// Gather from a computed tensor at constant indices: one slice per run of
/// consecutive indices, concatenated, then reshaped to ONNX's result shape.
void gather(I &m) {
  const ValueRef x = m.in(0);
  const Shape sx = m.shape(x);
  const int axis = axis_of(m, m.attr_int("axis", 0), sx.rank());
  const Constant &idx = m.need_const(1, "indices");
  Ints at;
  for (int64_t j : idx.ints)
    at.push_back(index_along(m, j, sx, axis));
  if (at.empty())
    m.fail("gather of no indices");
  std::vector<ValueRef> parts;
  for (size_t b = 0; b < at.size();) {
    size_t e = b + 1;
    while (e < at.size() && at[e] == at[e - 1] + 1)
      ++e;
    parts.push_back(
        m.add(OpKind::Slice,
              make_attrs(OpKind::Slice, {{"starts", Ints{at[b]}},
                                         {"ends", Ints{at[e - 1] + 1}},
                                         {"axes", Ints{axis}},
                                         {"steps", Ints{1}}}),
              {x}));
    b = e;
  }
  ValueRef v = parts[0];
  if (parts.size() > 1)
    v = m.add(OpKind::Concat,
              make_attrs(OpKind::Concat, {{"axis", int64_t(axis)}}), parts);
  Ints dims;
  for (int i = 0; i < axis; ++i)
    dims.push_back(sx[i]);
  for (int64_t d : idx.shape.dims)
    dims.push_back(d);
  for (int i = axis + 1; i < sx.rank(); ++i)
    dims.push_back(sx[i]);
  if (Shape(dims) == m.shape(v))
    return m.set_output(0, v);
  m.set_output(0, m.add(OpKind::Reshape,
                        make_attrs(OpKind::Reshape, {{"shape", dims}}), {v}));
}

/// GatherElements (the same at opsets 11 and 13): x's elements picked
/// along the axis, the indices computed or constant, held as float32.
void gather_elements(I &m) {
  const ValueRef x = m.in(0);
  const Shape sx = m.shape(x);
  const int axis = axis_of(m, m.attr_int("axis", 0), sx.rank());
  // Constant indices are checked now, so that a bad one names the node
  // when the model is read rather than when it runs.
  if (const Constant *idx = m.const_in(1))
    for (int64_t j : idx->ints)
      index_along(m, j, sx, axis);
  m.set_output(
      0, m.add(OpKind::GatherElements,
               make_attrs(OpKind::GatherElements, {{"axis", int64_t(axis)}}),
               {x, m.in(1)}));
}

void transpose_op(I &m) {
  const ValueRef x = m.in(0);
  Ints perm = m.attr_ints("perm").value_or(Ints{});
  if (perm.empty())
    for (int i = m.shape(x).rank() - 1; i >= 0; --i)
      perm.push_back(i);
  m.set_output(0, transpose(m, x, perm));
}

/// The shape of input 0 (a value or a constant).
Shape in0_shape(I &m) {
  if (const Constant *c = m.const_in(0))
    return c->shape;
  return m.shape(m.in(0));
}

void reshape(I &m) {
  const Shape sx = in0_shape(m);
  // Before opset 5 the target is an attribute.
  Ints dims = m.opset() < 5 ? m.attr_ints("shape").value_or(Ints{})
                            : m.need_const(1, "shape").ints;
  const bool allow_zero = m.attr_int("allowzero", 0) != 0;
  int64_t known = 1, unknown = -1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 0 && !allow_zero) {
      if (static_cast<int>(i) >= sx.rank())
        m.fail("shape copies dimension " + std::to_string(i) + " of " +
               sx.str() + ", which it lacks");
      dims[i] = sx[static_cast<int>(i)];
    }
    if (dims[i] == -1) {
      if (unknown >= 0)
        m.fail("shape has more than one -1");
      unknown = static_cast<int64_t>(i);
    } else if (dims[i] < 0) {
      m.fail("shape has a negative dimension " + std::to_string(dims[i]));
    } else if (__builtin_mul_overflow(known, dims[i], &known)) {
      m.fail("shape holds more elements than 64 bits count");
    }
  }
  if (unknown >= 0 && known > 0)
    dims[unknown] = sx.numel() / known;
  reshape_to(m, dims);
}

void flatten(I &m) {
  const Shape sx = in0_shape(m);
  const int axis = m.attr_int("axis", 1) == sx.rank()
                       ? sx.rank()
                       : axis_of(m, m.attr_int("axis", 1), sx.rank());
  reshape_to(m, {product(sx, 0, axis), product(sx, axis, sx.rank())});
}

Ints axes_of(I &m) {
  if (m.opset() >= 13)
    return m.has_input(1) ? m.need_const(1, "axes").ints : Ints{};
  return m.attr_ints("axes").value_or(Ints{});
}

void squeeze(I &m) {
  const Shape sx = in0_shape(m);
  Ints axes = axes_of(m);
  std::vector<bool> drop(sx.rank(), axes.empty());
  for (int64_t a : axes)
    drop[axis_of(m, a, sx.rank())] = true;
  Ints dims;
  for (int i = 0; i < sx.rank(); ++i) {
    if (drop[i] && sx[i] != 1 && !axes.empty())
      m.fail("cannot squeeze axis " + std::to_string(i) + " of " + sx.str());
    if (!(drop[i] && sx[i] == 1))
      dims.push_back(sx[i]);
  }
  reshape_to(m, dims);
}

void unsqueeze(I &m) {
  const Shape sx = in0_shape(m);
  const Ints axes = axes_of(m);
  const int r = sx.rank() + static_cast<int>(axes.size());
  std::vector<bool> added(r, false);
  for (int64_t a : axes) {
    const int at = axis_of(m, a, r);
    if (added[at]) // each axis adds one dimension
      m.fail("axis " + std::to_string(a) + " is given twice");
    added[at] = true;
  }
  Ints dims;
  for (int i = 0, k = 0; i < r; ++i)
    dims.push_back(added[i] ? 1 : sx[k++]);
  reshape_to(m, dims);
}

/// ReduceMean and the other reductions: axes from the attribute, or (from
/// opset 13, ReduceSum) from input 1; no axes means all of them, unless
/// noop_with_empty_axes asks for the input unchanged.
Handler reduce(std::optional<ops::ReduceFn> fn) {
  return [fn](I &m) {
    const ValueRef x = m.in(0);
    Ints axes = m.attr_ints("axes").value_or(Ints{});
    if (m.has_input(1))
      axes = m.need_const(1, "axes").ints;
    if (axes.empty()) {
      if (m.attr_int("noop_with_empty_axes", 0))
        return m.set_output(0, x);
      for (int i = 0; i < m.shape(x).rank(); ++i)
        axes.push_back(i);
    }
    const int64_t keep = m.attr_int("keepdims", 1);
    if (!fn)
      return m.set_output(
          0, m.add(OpKind::ReduceMean,
                   make_attrs(OpKind::ReduceMean,
                              {{"axes", axes}, {"keepdims", keep}}),
                   {x}));
    m.set_output(
        0, m.add(OpKind::Reduce,
                 make_attrs(OpKind::Reduce, {{"fn", static_cast<int64_t>(*fn)},
                                             {"axes", axes},
                                             {"keepdims", keep}}),
                 {x}));
  };
}

/// Softmax or Hardmax (`kind`) along the node's axis.
Handler along_axis(OpKind kind) {
  return [kind](I &m) {
    const ValueRef x = m.in(0);
    const Shape sx = m.shape(x);
    const int axis =
        axis_of(m, m.attr_int("axis", m.opset() < 13 ? 1 : -1), sx.rank());
    auto soft = [&](ValueRef v, int64_t a) {
      return m.add(kind, make_attrs(kind, {{"axis", a}}), {v});
    };
    if (m.opset() >= 13 || axis == sx.rank() - 1)
      return m.set_output(0, soft(x, axis));
    // Before opset 13 they work over all axes from `axis` on, flattened.
    const auto flat = [&](Ints dims, ValueRef v) {
      return m.add(OpKind::Reshape,
                   make_attrs(OpKind::Reshape, {{"shape", std::move(dims)}}),
                   {v});
    };
    const ValueRef y =
        soft(flat({product(sx, 0, axis), product(sx, axis, sx.rank())}, x), 1);
    m.set_output(0, flat(sx.dims, y));
  };
}

void constant(I &m) {
  Constant c;
  if (const auto *a = m.attr("value")) {
    try {
      c = decode_tensor(a->t());
    } catch (const Error &e) {
      m.fail(e.what());
    }
  } else if (const auto *f = m.attr("value_float")) {
    c.reals = {f->f()};
    c.ints = {static_cast<int64_t>(f->f())};
  } else if (const auto *fs = m.attr("value_floats")) {
    c.shape = Shape{fs->floats_size()};
    for (float v : fs->floats()) {
      c.reals.push_back(v);
      c.ints.push_back(static_cast<int64_t>(v));
    }
  } else if (const auto *i = m.attr("value_int")) {
    c.elem = onnx::TensorProto::INT64;
    c.reals = {static_cast<double>(i->i())};
    c.ints = {i->i()};
  } else if (const auto *is = m.attr("value_ints")) {
    c.elem = onnx::TensorProto::INT64;
    c.shape = Shape{is->ints_size()};
    for (int64_t v : is->ints()) {
      c.reals.push_back(static_cast<double>(v));
      c.ints.push_back(v);
    }
  } else {
    m.fail("only value, value_float(s) and value_int(s) are supported");
  }
  m.set_output_const(0, std::move(c));
}

void clip(I &m) {
  double lo = -FLT_MAX, hi = FLT_MAX;
  if (m.opset() < 11) {
    lo = m.attr_float("min", -FLT_MAX);
    hi = m.attr_float("max", FLT_MAX);
  } else {
    const bool computed = (m.has_input(1) && !m.const_in(1)) ||
                          (m.has_input(2) && !m.const_in(2));
    if (computed) { // bounds known at run time: max, then min
      ValueRef y = m.in(0);
      if (m.has_input(1))
        y = binary(m, BroadcastFn::Max, y, m.in(1));
      if (m.has_input(2))
        y = binary(m, BroadcastFn::Min, y, m.in(2));
      return m.set_output(0, y);
    }
    if (m.has_input(1))
      lo = m.need_const(1, "min").reals.at(0);
    if (m.has_input(2))
      hi = m.need_const(2, "max").reals.at(0);
  }
  pointwise(m, PointwiseFn::Clip, lo, hi);
}

/// An identity wherever nothing is dropped: at inference (training_mode
/// absent or a constant false, from opset 12), and in training at a ratio
/// of 0 (some exporters write that); the mask then keeps every element.
void dropout(I &m) {
  bool training = false;
  if (m.has_input(2)) {
    const Constant *t = m.const_in(2);
    if (!t || t->ints.size() != 1)
      m.fail("training_mode must be a constant (quarry runs inference)");
    training = t->ints[0] != 0;
  }
  if (training) {
    double ratio = 0.5;
    if (m.has_input(1)) {
      const Constant *r = m.const_in(1);
      if (!r || r->reals.size() != 1)
        m.fail("in training its ratio must be a constant");
      ratio = r->reals[0];
    }
    if (ratio != 0.0)
      m.fail("training_mode drops elements at random (ratio " +
             std::to_string(ratio) + "); quarry runs inference");
  }
  if (m.has_output(1)) {
    Constant mask;
    mask.elem = onnx::TensorProto::BOOL;
    mask.shape = m.input_shape(0);
    mask.ints.assign(static_cast<size_t>(mask.shape.numel()), 1);
    mask.reals.assign(mask.ints.size(), 1.0);
    m.set_output_const(1, std::move(mask));
  }
  identity(m);
}

void cast(I &m) {
  // A constant operand was folded already (onnx_fold.h).
  const int64_t to = m.attr_int("to", 1);
  // float16 and bfloat16 are computed as float32: a cast to them keeps
  // float32's precision (nearer the exact value than ONNX's rounding).
  if (held_as_float(static_cast<int32_t>(to)))
    return identity(m);
  if (to == onnx::TensorProto::BOOL) { // x != 0, held as 0 and 1
    if (m.is_bool(0))
      identity(m);
    else
      m.set_output(
          0, binary(m, BroadcastFn::Ne, m.in(0),
                    m.constant_weight("zero", Tensor<float>(Shape{}, 0.0f))));
    return m.set_bool_output(0);
  }
  // To an integer type quarry holds exactly (quantized integers): a float
  // truncated toward zero, as ONNX's Cast converts (values past the type's
  // range are undefined there); an integer it holds already is the same.
  const auto type = static_cast<int32_t>(to);
  if (held_exactly(type) || type == onnx::TensorProto::INT32) {
    const int32_t from = m.held_elem(0);
    if (from == 0) {
      const ValueRef x = m.in(0);
      m.set_output(0, binary(m, BroadcastFn::Mul,
                             pointwise(m, PointwiseFn::Sign, x),
                             pointwise(m, PointwiseFn::Floor,
                                       pointwise(m, PointwiseFn::Abs, x))));
      return m.set_held_output(0, type);
    }
    if (from != onnx::TensorProto::BOOL) {
      identity(m);
      return m.set_held_output(0, type);
    }
  }
  m.fail("Cast of a computed tensor to " +
         elem_type_name(static_cast<int32_t>(m.attr_int("to", 0))) +
         " is not supported; quarry graphs hold float32");
}

/// CastLike: a Cast to the type of input 1.
void cast_like(I &m) {
  int32_t to = m.held_elem(1);
  if (const Constant *like = m.const_in(1))
    to = like->elem;
  if (to == 0)
    to = onnx::TensorProto::FLOAT; // a value quarry holds as float32
  onnx::NodeProto n = m.node();
  n.set_op_type("Cast");
  n.mutable_input()->DeleteSubrange(1, n.input_size() - 1);
  n.clear_attribute();
  add_attr(n, "to", int64_t{to});
  m.run_as(n, cast);
}

} // namespace

Attrs slice_attrs(Importer &m, int rank) {
  Ints starts, ends, axes, steps;
  if (m.opset() < 10) {
    starts = m.attr_ints("starts").value_or(Ints{});
    ends = m.attr_ints("ends").value_or(Ints{});
    axes = m.attr_ints("axes").value_or(Ints{});
  } else {
    starts = m.need_const(1, "starts").ints;
    ends = m.need_const(2, "ends").ints;
    if (m.has_input(3))
      axes = m.need_const(3, "axes").ints;
    if (m.has_input(4))
      steps = m.need_const(4, "steps").ints;
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(static_cast<int64_t>(i));
  if (steps.empty())
    steps.assign(starts.size(), 1);
  for (int64_t &a : axes)
    a = m.axis(a, rank);
  return make_attrs(
      OpKind::Slice,
      {{"starts", starts}, {"ends", ends}, {"axes", axes}, {"steps", steps}});
}

const std::map<std::string, Handler, std::less<>> &onnx_handlers() {
  using F = PointwiseFn;
  using B = BroadcastFn;
  static const std::map<std::string, Handler, std::less<>> table = [] {
    std::map<std::string, Handler, std::less<>> t = {
        {"Identity", identity},
        {"Dropout", dropout},
        {"Cast", cast},
        {"CastLike", cast_like},
        {"Constant", constant},
        {"Relu", unary(OpKind::Relu)},
        {"Sigmoid", unary(OpKind::Sigmoid)},
        {"Tanh", unary(OpKind::Tanh)},
        {"Elu",
         [](I &m) { pointwise(m, F::Elu, m.attr_float("alpha", 1.0f)); }},
        {"Selu",
         [](I &m) {
           pointwise(m, F::Selu,
                     m.attr_float("alpha", 1.67326319217681884765625f),
                     m.attr_float("gamma", 1.05070102214813232421875f));
         }},
        {"Celu",
         [](I &m) { pointwise(m, F::Celu, m.attr_float("alpha", 1.0f)); }},
        {"ThresholdedRelu",
         [](I &m) {
           pointwise(m, F::ThresholdedRelu, m.attr_float("alpha", 1.0f));
         }},
        {"Shrink",
         [](I &m) {
           pointwise(m, F::Shrink, m.attr_float("lambd", 0.5f),
                     m.attr_float("bias", 0.0f));
         }},
        {"LeakyRelu",
         [](I &m) {
           pointwise(m, F::LeakyRelu, m.attr_float("alpha", 0.01f));
         }},
        {"HardSigmoid",
         [](I &m) {
           pointwise(m, F::HardSigmoid, m.attr_float("alpha", 0.2f),
                     m.attr_float("beta", 0.5f));
         }},
        {"Clip", clip},
        {"Add", binary_fn(B::Add)},
        {"Sub", binary_fn(B::Sub)},
        {"Mul", binary_fn(B::Mul)},
        {"Div", binary_fn(B::Div)},
        {"Pow", binary_fn(B::Pow)},
        {"Max", variadic_fn(B::Max)},
        {"Min", variadic_fn(B::Min)},
        {"Expand", expand},
        {"Gather", gather},
        {"GatherElements", gather_elements},
        {"MatMul", matmul},
        {"Gemm", gemm},
        {"Concat", concat},
        {"Split", split},
        {"Slice", slice},
        {"Transpose", transpose_op},
        {"Reshape", reshape},
        {"Flatten", flatten},
        {"Squeeze", squeeze},
        {"Unsqueeze", unsqueeze},
        {"ReduceMean", reduce(std::nullopt)},
        {"Softmax", along_axis(OpKind::Softmax)},
        {"Hardmax", along_axis(OpKind::Hardmax)},
    };
    add_window_handlers(t);
    add_resize_pad_handlers(t);
    // Every other pointwise function takes no attribute: ONNX names it
    // as quarry does, in camel case (those with attributes are above).
    // (GELU, an operator of opset 20, comes as its opset-17 form; SiLU is
    // no ONNX operator: both are functions quarry's own graphs may hold.)
    for (size_t f = 0; f < std::size(ops::kPointwiseNames); ++f)
      if (static_cast<F>(f) != F::Gelu && static_cast<F>(f) != F::Silu)
        t.emplace(onnx_name(ops::kPointwiseNames[f]),
                  pointwise_fn(static_cast<F>(f)));
    for (size_t f = 0; f < std::size(ops::kReduceNames); ++f)
      t.emplace("Reduce" + onnx_name(ops::kReduceNames[f]),
                reduce(static_cast<ops::ReduceFn>(f)));
    add_composite_handlers(t);
    add_einsum_handler(t);
    add_quantized_handlers(t);
    add_dft_handler(t);
    add_scatter_handlers(t);
    return t;
  }();
  return table;
}

} // namespace quarry::onnx_io
