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

/// Per-side pads [top, left, bottom, right] of a 2-D window operator.
/// Whether each of `v` is from `low` to 2^31, which keeps every sum and
/// product of window sizes, strides and pads within 64 bits.
bool window_values(const Ints &v, int64_t low) {
  return std::all_of(v.begin(), v.end(), [&](int64_t x) {
    return x >= low && x <= (int64_t{1} << 31);
  });
}

/// A 2-D window's strides: two positive values, 1 and 1 when not given.
Ints window_strides(I &m) {
  Ints s = m.attr_ints("strides").value_or(Ints{1, 1});
  if (s.size() != 2 || !window_values(s, 1))
    m.fail("strides must be 2 values from 1 to 2^31 for a 2-D window");
  return s;
}

/// The `pads` attribute of a 2-D window: 4 values from 0 to 2^31, zeros
/// when not given.
Ints given_pads(I &m) {
  Ints p = m.attr_ints("pads").value_or(Ints{0, 0, 0, 0});
  if (p.size() != 4)
    m.fail("pads must have 4 values for a 2-D window");
  if (!window_values(p, 0))
    m.fail("pads must be from 0 to 2^31");
  return p;
}

Ints window_pads(I &m, const Shape &x, const Ints &k, const Ints &s) {
  const std::string mode = m.attr_string("auto_pad", "NOTSET");
  if (mode == "NOTSET")
    return given_pads(m);
  if (mode == "VALID")
    return {0, 0, 0, 0};
  if (mode != "SAME_UPPER" && mode != "SAME_LOWER")
    m.fail("auto_pad " + mode + " is not supported");
  Ints p(4);
  for (int i = 0; i < 2; ++i) {
    const int64_t in = x[2 + i], out = (in + s[i] - 1) / s[i];
    const int64_t total = std::max<int64_t>(0, (out - 1) * s[i] + k[i] - in);
    const int64_t small = total / 2;
    p[i] = mode == "SAME_UPPER" ? small : total - small;
    p[i + 2] = total - p[i];
  }
  return p;
}

/// The algebra's padding that equals these pads exactly, if any.
std::optional<Padding> algebra_padding(const Shape &x, const Ints &k,
                                       const Ints &s, const Ints &p) {
  bool same = true, valid = true;
  for (int i = 0; i < 2; ++i) {
    const int64_t in = x[2 + i];
    const int64_t out = (in + p[i] + p[i + 2] - k[i]) / s[i] + 1;
    same = same && p[i] == (k[i] - 1) / 2 && out == (in + s[i] - 1) / s[i];
    valid = valid && p[i] == 0 && p[i + 2] == 0;
  }
  if (same)
    return Padding::Same;
  if (valid)
    return Padding::Valid;
  return std::nullopt;
}

void require_2d(I &m, const Shape &x, const char *what,
                bool dilation_handled = false) {
  if (x.rank() != 4)
    m.fail(std::string("only 2-D ") + what + " (NCHW) is supported, got " +
           x.str());
  if (auto d = m.attr_ints("dilations"); d && !dilation_handled)
    for (int64_t v : *d)
      if (v != 1)
        m.fail("dilations other than 1 are not supported");
}

/// A 2-D convolution's weight: two channel axes ([out, in / group] for Conv,
/// [in, out / group] for ConvTranspose), then the kernel's height and width.
void require_2d_kernel(I &m, const Shape &w) {
  if (w.rank() != 4)
    m.fail("the weight must be 4-D (two channel axes, kh, kw), got " + w.str());
}

/// Adds a per-channel bias (input 2) to the NCHW value y.
ValueRef add_bias(I &m, ValueRef y) {
  if (!m.has_input(2))
    return y;
  const int64_t co = m.shape(y)[1];
  ValueRef bias;
  if (const Constant *c = m.const_in(2)) {
    // Found by fuzzing: a bias of another size was relabelled [co,1,1].
    if (c->shape.numel() != co)
      m.fail("the bias " + c->shape.str() + " holds " +
             std::to_string(c->shape.numel()) + " values for " +
             std::to_string(co) + " output channels");
    Tensor<float> t = c->as_float();
    t.shape = Shape{co, 1, 1};
    bias = m.constant_weight(m.node().input(2), std::move(t));
    m.name_weight(bias, m.node().input(2), c->shape); // Conv's bias again
  } else {
    bias = m.add(OpKind::Reshape,
                 make_attrs(OpKind::Reshape, {{"shape", Ints{co, 1, 1}}}),
                 {m.in(2)});
  }
  return binary(m, BroadcastFn::Add, y, bias);
}

void conv(I &m) {
  ValueRef x = m.in(0);
  require_2d(m, m.shape(x), "convolution", true);
  const Ints d = m.attr_ints("dilations").value_or(Ints{1, 1});
  if (d.size() != 2 || !window_values(d, 1))
    m.fail("dilations must be 2 values from 1 to 2^31 for a 2-D convolution");
  const ValueRef w = m.in(1);
  const Shape sx = m.shape(x), sw = m.shape(w);
  require_2d_kernel(m, sw);
  if (!window_values({sw[2], sw[3]}, 1))
    m.fail("the kernel " + sw.str() + " must be from 1 to 2^31 per side");
  // The window's extent: taps d apart.
  const Ints k{ops::dilated_extent(sw[2], d[0]),
               ops::dilated_extent(sw[3], d[1])};
  const Ints s = window_strides(m);
  if (sw[1] < 1 || m.attr_int("group", 1) * sw[1] != sx[1])
    m.fail("group " + std::to_string(m.attr_int("group", 1)) +
           " does not match input " + sx.str() + " and weight " + sw.str());
  const Ints p = window_pads(m, sx, k, s);
  for (int i = 0; i < 2; ++i)
    if (sx[2 + i] + p[i] + p[i + 2] < k[i])
      m.fail("the kernel " + sw.str() +
             (d == Ints{1, 1} ? ""
                              : " at dilation " + std::to_string(d[0]) + "," +
                                    std::to_string(d[1])) +
             " spans " + std::to_string(k[i]) +
             " elements, past the padded "
             "input " +
             sx.str());
  auto pad = algebra_padding(sx, k, s, p);
  if (!pad) {
    x = m.add(OpKind::Pad,
              make_attrs(OpKind::Pad,
                         {{"pads", Ints{0, 0, p[0], p[1], 0, 0, p[2], p[3]}}}),
              {x});
    pad = Padding::Valid;
  }
  Attrs attrs = make_attrs(OpKind::Conv2D, {{"s", s}, {"pad", int64_t(*pad)}});
  if (d != Ints{1, 1})
    attrs.set(ops::Conv2D::kDilation, d);
  const ValueRef y = m.add(OpKind::Conv2D, std::move(attrs), {x, w});
  m.set_output(0, add_bias(m, y));
}

/// ConvTranspose's pads: given, or computed from output_shape or auto_pad
/// SAME_* the way ONNX defines them (the odd one at the end for SAME_UPPER,
/// at the start otherwise). An output_shape beyond what the operator makes
/// grows `out_pad` (zeros at the end), as ONNX's reference does.
Ints transposed_pads(I &m, const Shape &x, const Shape &w, const Ints &s,
                     Ints &out_pad) {
  const std::string mode = m.attr_string("auto_pad", "NOTSET");
  if (mode == "VALID")
    return {0, 0, 0, 0};
  if (mode != "NOTSET" && mode != "SAME_UPPER" && mode != "SAME_LOWER")
    m.fail("auto_pad " + mode + " is not supported");
  auto shape = m.attr_ints("output_shape");
  if (!shape && mode == "NOTSET")
    return given_pads(m);
  if (shape && shape->size() < 2)
    m.fail("output_shape needs the output's height and width");
  Ints p(4);
  for (int i = 0; i < 2; ++i) {
    // In 128 bits: attribute values are only known to fit 64.
    using Wide = __int128;
    const Wide want =
        shape ? Wide{(*shape)[shape->size() - 2 + i]} : Wide{x[2 + i]} * s[i];
    const Wide wide =
        Wide{s[i]} * (x[2 + i] - 1) + out_pad[i] + w[2 + i] - want;
    if (wide < -(Wide{1} << 40) || wide > (Wide{1} << 40))
      m.fail("output_shape, strides and output_padding give pads beyond "
             "2^40");
    const int64_t total = static_cast<int64_t>(wide);
    if (total < 0) {
      out_pad[i] -= total;
      continue;
    }
    const bool upper = mode == "SAME_UPPER";
    p[i] = upper ? total / 2 : total - total / 2;
    p[i + 2] = total - p[i];
  }
  return p;
}

void conv_transpose(I &m) {
  const ValueRef x = m.in(0), w = m.in(1);
  require_2d(m, m.shape(x), "transposed convolution");
  require_2d_kernel(m, m.shape(w));
  const Ints s = window_strides(m);
  Ints out_pad = m.attr_ints("output_padding").value_or(Ints{0, 0});
  if (out_pad.size() != 2)
    m.fail("output_padding must have 2 values for a 2-D window");
  if (!window_values(out_pad, 0))
    m.fail("output_padding must be from 0 to 2^31");
  const Ints pads = transposed_pads(m, m.shape(x), m.shape(w), s, out_pad);
  const ValueRef y = m.add(
      OpKind::ConvTranspose,
      make_attrs(OpKind::ConvTranspose, {{"s", s},
                                         {"pads", pads},
                                         {"out_pad", out_pad},
                                         {"groups", m.attr_int("group", 1)}}),
      {x, w});
  m.set_output(0, add_bias(m, y));
}

void pool(I &m, bool is_max) {
  const ValueRef x = m.in(0);
  const Shape sx = m.shape(x);
  require_2d(m, sx, "pooling", is_max);
  const bool ceil = m.attr_int("ceil_mode", 0) != 0;
  if (m.has_output(1))
    m.fail("the Indices output is not supported");
  const auto k = m.attr_ints("kernel_shape");
  if (!k || k->size() != 2 || !window_values(*k, 1))
    m.fail("kernel_shape must have 2 values from 1 to 2^31");
  const Ints d = m.attr_ints("dilations").value_or(Ints{1, 1});
  if (d.size() != 2 || !window_values(d, 1))
    m.fail("dilations must be 2 values from 1 to 2^31 for a 2-D window");
  // A dilated window spans this much of the (padded) input.
  const Ints span{((*k)[0] - 1) * d[0] + 1, ((*k)[1] - 1) * d[1] + 1};
  const Ints s = window_strides(m);
  const Ints p = window_pads(m, sx, span, s);
  const bool count_pad = m.attr_int("count_include_pad", 0) != 0;
  auto pad = algebra_padding(sx, *k, s, p);
  const bool padded =
      std::any_of(p.begin(), p.end(), [](int64_t v) { return v != 0; });
  if (pad && !is_max && padded && !count_pad)
    pad.reset(); // the algebra's average always counts padding
  if (ceil || span != *k)
    pad.reset();
  if (pad) {
    const OpKind kind = is_max ? OpKind::Pool2DMax : OpKind::Pool2DAvg;
    m.set_output(
        0,
        m.add(kind,
              make_attrs(kind, {{"k", *k}, {"s", s}, {"pad", int64_t(*pad)}}),
              {x}));
    return;
  }
  m.set_output(0, m.add(OpKind::Pool2DExplicit,
                        make_attrs(OpKind::Pool2DExplicit,
                                   {{"fn", int64_t(is_max ? 1 : 0)},
                                    {"k", *k},
                                    {"s", s},
                                    {"pads", p},
                                    {"count_pad", int64_t(count_pad)},
                                    {"d", d},
                                    {"ceil", int64_t(ceil)}}),
                        {x}));
}

Handler global_pool(OpKind kind) {
  return [kind](I &m) {
    const ValueRef x = m.in(0);
    const Shape sx = m.shape(x);
    require_2d(m, sx, "pooling");
    m.set_output(0, m.add(kind,
                          make_attrs(kind, {{"k", Ints{sx[2], sx[3]}},
                                            {"pad", int64_t(Padding::Valid)}}),
                          {x}));
  };
}

void batchnorm(I &m) {
  if (m.attr_int("training_mode", 0))
    m.fail("training_mode=1 is not supported (inference only)");
  if (m.opset() < 9 && m.attr_int("spatial", 1) == 0)
    m.fail("spatial=0 (statistics per element) is not supported");
  for (int i = 1; i < m.node().output_size(); ++i)
    if (!m.node().output(i).empty())
      m.fail("training outputs (running mean/var) are not supported");
  m.set_output(
      0, m.add(OpKind::BatchNorm,
               make_attrs(OpKind::BatchNorm,
                          {{"eps", double(m.attr_float("epsilon", 1e-5f))}}),
               {m.in(0), m.in(1), m.in(2), m.in(3), m.in(4)}));
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
  for (int64_t a : axes)
    added[axis_of(m, a, r)] = true;
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

/// The index of string attribute value `v` in an operator's enum `names`;
/// fails naming the attribute (`what`) when it has none.
int64_t enum_index(I &m, std::span<const std::string_view> names,
                   const std::string &v, const char *what) {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == v)
      return static_cast<int64_t>(i);
  m.fail(std::string(what) + " " + v + " is not supported");
}

void grid_sample(I &m) {
  std::string mode = m.attr_string("mode", "bilinear");
  // Opset 20 renamed bilinear and bicubic to linear and cubic.
  if (mode == "linear" || mode == "cubic")
    mode = "bi" + mode;
  const int64_t pad =
      enum_index(m, ops::kGridSamplePadNames,
                 m.attr_string("padding_mode", "zeros"), "padding_mode");
  m.set_output(
      0, m.add(OpKind::GridSample,
               make_attrs(
                   OpKind::GridSample,
                   {{"mode",
                     enum_index(m, ops::kGridSampleModeNames, mode, "mode")},
                    {"pad", pad},
                    {"align", int64_t(m.attr_int("align_corners", 0) != 0)}}),
               {m.in(0), m.in(1)}));
}

/// The output extents of `sx` at `scales`, floored as ONNX has them; fails
/// where one is not in its scale's ratio to the input: quarry's resize
/// maps coordinates by out/in, ONNX by the scale.
Ints scaled_extents(I &m, const Shape &sx, const std::vector<double> &scales) {
  if (static_cast<int>(scales.size()) != sx.rank())
    m.fail("scales must have one value per axis");
  Ints out;
  for (int i = 0; i < sx.rank(); ++i) {
    const double want = static_cast<double>(sx[i]) * scales[i];
    if (!(want >= 1 && want <= double(int64_t{1} << 40)))
      m.fail("scale " + std::to_string(scales[i]) + " of axis " +
             std::to_string(i) + " gives no extent quarry holds");
    out.push_back(static_cast<int64_t>(std::floor(want)));
    if (static_cast<double>(out.back()) != want)
      m.fail("scale " + std::to_string(scales[i]) + " of axis " +
             std::to_string(i) + " gives " + std::to_string(out.back()) +
             " of " + std::to_string(sx[i]) +
             ", not in that ratio, which quarry's resize needs");
  }
  return out;
}

/// Upsample (deprecated at 10): a resize with asymmetric coordinates and
/// nearest's floor, its scales an attribute before opset 9 and input 1
/// from it.
void upsample(I &m) {
  const ValueRef x = m.in(0);
  std::vector<double> scales;
  if (m.opset() < 9) {
    if (const auto *a = m.attr("scales"))
      scales.assign(a->floats().begin(), a->floats().end());
  } else {
    scales = m.need_const(1, "scales").reals;
  }
  std::string mode = m.attr_string("mode", "nearest");
  if (mode == "bilinear")
    mode = "linear";
  if (mode != "nearest" && mode != "linear")
    m.fail("mode " + mode + " is not supported (nearest, linear are)");
  m.set_output(
      0,
      m.add(OpKind::Resize,
            make_attrs(
                OpKind::Resize,
                {{"shape", scaled_extents(m, m.shape(x), scales)},
                 {"mode", enum_index(m, ops::kResizeModeNames, mode, "mode")},
                 {"coord", static_cast<int64_t>(ops::ResizeCoord::Asymmetric)},
                 {"nearest", static_cast<int64_t>(ops::ResizeNearest::Floor)}}),
            {x}));
}

void resize(I &m) {
  const ValueRef x = m.in(0);
  const Shape sx = m.shape(x);
  const std::string mode = m.attr_string("mode", "nearest");
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    m.fail("mode " + mode + " is not supported (nearest, linear, cubic are)");
  const std::string coord =
      m.attr_string("coordinate_transformation_mode",
                    m.opset() < 11 ? "asymmetric" : "half_pixel");
  const std::string nearest =
      m.attr_string("nearest_mode", "round_prefer_floor");
  Ints out;
  const int scales_at = m.opset() < 11 ? 1 : 2;
  if (m.opset() >= 11 && m.has_input(3) &&
      !m.need_const(3, "sizes").ints.empty()) {
    out = m.need_const(3, "sizes").ints;
  } else {
    out = scaled_extents(m, sx, m.need_const(scales_at, "scales").reals);
  }
  m.set_output(
      0,
      m.add(OpKind::Resize,
            make_attrs(
                OpKind::Resize,
                {{"shape", out},
                 {"mode", enum_index(m, ops::kResizeModeNames, mode, "mode")},
                 {"cubic_a", double(m.attr_float("cubic_coeff_a", -0.75f))},
                 {"exclude_outside", m.attr_int("exclude_outside", 0)},
                 {"coord", enum_index(m, ops::kResizeCoordNames, coord,
                                      "coordinate_transformation_mode")},
                 {"nearest", enum_index(m, ops::kResizeNearestNames, nearest,
                                        "nearest_mode")}}),
            {x}));
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

/// Pad's mode as an index into ops::kPadModeNames.
int64_t pad_mode(I &m) {
  const std::string mode = m.attr_string("mode", "constant");
  const auto *known = std::find(std::begin(ops::kPadModeNames),
                                std::end(ops::kPadModeNames), mode);
  if (known == std::end(ops::kPadModeNames))
    m.fail("mode " + mode + " is not supported (constant, reflect, edge are)");
  return known - std::begin(ops::kPadModeNames);
}

/// Pad's pads, ONNX's order (befores, then afters), and its constant:
/// attributes before opset 11 (opset 1 names the pads `paddings`),
/// constant inputs from 11.
std::pair<Ints, double> pad_amounts(I &m) {
  if (m.opset() < 11)
    return {m.attr_ints(m.opset() < 2 ? "paddings" : "pads").value_or(Ints{}),
            m.attr_float("value", 0)};
  double value = 0;
  if (m.has_input(2))
    value = m.need_const(2, "constant_value").reals.at(0);
  return {m.need_const(1, "pads").ints, value};
}

/// Refuses pads that are not two per axis of `x`, and negative pads that
/// remove every element of an axis: ONNX then fills the result with the
/// constant, but the crop before that would be an empty tensor, which
/// graphs do not hold.
void check_pads(I &m, const Shape &x, const Ints &pads) {
  const int r = x.rank();
  if (pads.size() != 2 * static_cast<size_t>(r))
    m.fail("pads needs " + std::to_string(2 * r) + " values for " + x.str());
  for (int i = 0; i < r; ++i) {
    const int64_t b = pads[i], e = pads[i + r];
    // In 128 bits: pads may be any int64, their sum not.
    if (__int128{x[i]} + std::min<int64_t>(b, 0) + std::min<int64_t>(e, 0) < 1)
      m.fail("pads " + std::to_string(b) + "," + std::to_string(e) +
             " remove all " + std::to_string(x[i]) + " elements of axis " +
             std::to_string(i) + " (quarry holds no empty tensors)");
  }
}

/// x without what the negative pads remove (-p elements from that side of
/// the axis): one slice over the axes they crop; x itself if none do.
ValueRef crop_negative_pads(I &m, ValueRef x, const Ints &pads) {
  const Shape sx = m.shape(x);
  const int r = sx.rank();
  Ints starts, ends, axes;
  for (int i = 0; i < r; ++i) {
    const int64_t b = std::min<int64_t>(pads[i], 0);
    const int64_t e = std::min<int64_t>(pads[i + r], 0);
    if (b == 0 && e == 0)
      continue;
    starts.push_back(-b);
    ends.push_back(sx[i] + e);
    axes.push_back(i);
  }
  if (axes.empty())
    return x;
  Ints steps(axes.size(), 1);
  return m.add(OpKind::Slice,
               make_attrs(OpKind::Slice, {{"starts", std::move(starts)},
                                          {"ends", std::move(ends)},
                                          {"axes", std::move(axes)},
                                          {"steps", std::move(steps)}}),
               {x});
}

/// ONNX Pad. A negative pad crops: the negative parts are cut off first,
/// then the rest is padded. That order is ONNX's own (its reference
/// slices, then numpy-pads the cropped tensor), so reflect and edge
/// mirror and repeat the cropped tensor's edges, and reflect's limit of
/// extent - 1 applies to the cropped extent.
void pad(I &m) {
  const int64_t mode = pad_mode(m);
  const auto [pads, value] = pad_amounts(m);
  const ValueRef x = m.in(0);
  check_pads(m, m.shape(x), pads);
  const ValueRef cropped = crop_negative_pads(m, x, pads);
  Ints added = pads;
  for (int64_t &p : added)
    p = std::max<int64_t>(p, 0);
  if (std::all_of(added.begin(), added.end(), [](int64_t p) { return p == 0; }))
    return m.set_output(0, cropped);
  m.set_output(0, m.add(OpKind::Pad,
                        make_attrs(OpKind::Pad, {{"pads", std::move(added)},
                                                 {"value", value},
                                                 {"mode", mode}}),
                        {cropped}));
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
         onnx::TensorProto::DataType_Name(
             static_cast<onnx::TensorProto::DataType>(m.attr_int("to", 0))) +
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
        {"Conv", conv},
        {"ConvTranspose", conv_transpose},
        {"BatchNormalization", batchnorm},
        {"Concat", concat},
        {"Split", split},
        {"Slice", slice},
        {"Transpose", transpose_op},
        {"Reshape", reshape},
        {"Flatten", flatten},
        {"Squeeze", squeeze},
        {"Unsqueeze", unsqueeze},
        {"MaxPool", [](I &m) { pool(m, true); }},
        {"AveragePool", [](I &m) { pool(m, false); }},
        {"GlobalAveragePool", global_pool(OpKind::Pool2DAvg)},
        {"GlobalMaxPool", global_pool(OpKind::Pool2DMax)},
        {"ReduceMean", reduce(std::nullopt)},
        {"Softmax", along_axis(OpKind::Softmax)},
        {"Hardmax", along_axis(OpKind::Hardmax)},
        {"GridSample", grid_sample},
        {"Resize", resize},
        {"Upsample", upsample},
        {"Pad", pad},
    };
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
