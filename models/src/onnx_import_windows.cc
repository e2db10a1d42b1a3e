//===- onnx_import_windows.cc - Convolutions, pools and batchnorm ---------===//
//
// The 2-D window operators: ONNX's explicit pads, strides, dilations and
// groups onto conv2d, conv_transpose and the pools (the algebra's same and
// valid windows where they are exact, explicit windows otherwise), and
// BatchNormalization onto batchnorm.
//
//===----------------------------------------------------------------------===//
#include "onnx_attrs.h"
#include "onnx_importer.h"
#include "onnx_window_pads.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <numeric>

namespace quarry::onnx_io {

namespace {

using I = Importer;
using Ints = std::vector<int64_t>;
using ops::BroadcastFn;

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
  return same_pads({x[2], x[3]}, k, s, mode == "SAME_UPPER");
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
Ints conv_transpose_pads(I &m, const Shape &x, const Shape &w, const Ints &s,
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
  const Ints out = shape ? Ints(shape->end() - 2, shape->end())
                         : Ints{x[2] * s[0], x[3] * s[1]};
  const auto p = transposed_pads({x[2], x[3]}, {w[2], w[3]}, s, out,
                                 mode == "SAME_UPPER", out_pad);
  if (!p)
    m.fail("output_shape, strides and output_padding give pads beyond 2^40");
  return *p;
}

/// A transposed convolution's constant weight [C, Co/g, kh, kw] at
/// dilations `d`: the kernel with d - 1 zeros between its taps, which the
/// undilated operator computes the same with.
ValueRef dilated_kernel(I &m, const Ints &d) {
  const Constant *c = m.const_in(1);
  if (!c)
    m.fail("dilations other than 1 need a constant weight");
  const Shape &sw = c->shape;
  if (sw.rank() != 4 || sw[2] < 1 || sw[3] < 1 || !window_values(d, 1) ||
      (sw[2] - 1) * d[0] + 1 > (int64_t{1} << 16) ||
      (sw[3] - 1) * d[1] + 1 > (int64_t{1} << 16))
    m.fail("dilations " + std::to_string(d[0]) + "," + std::to_string(d[1]) +
           " of weight " + sw.str() + " give no kernel quarry builds");
  const int64_t kh = (sw[2] - 1) * d[0] + 1, kw = (sw[3] - 1) * d[1] + 1;
  Tensor<float> k(Shape{sw[0], sw[1], kh, kw}, 0.0f);
  for (int64_t p = 0; p < sw[0] * sw[1]; ++p)
    for (int64_t i = 0; i < sw[2]; ++i)
      for (int64_t j = 0; j < sw[3]; ++j)
        k[(p * kh + i * d[0]) * kw + j * d[1]] =
            static_cast<float>(c->reals[(p * sw[2] + i) * sw[3] + j]);
  return m.constant_weight(m.node().input(1) + "_dilated", std::move(k));
}

void conv_transpose(I &m) {
  const ValueRef x = m.in(0);
  require_2d(m, m.shape(x), "transposed convolution", true);
  const Ints d = m.attr_ints("dilations").value_or(Ints{1, 1});
  if (d.size() != 2)
    m.fail("dilations must be 2 values for a 2-D window");
  const ValueRef w = d == Ints{1, 1} ? m.in(1) : dilated_kernel(m, d);
  require_2d_kernel(m, m.shape(w));
  const Ints s = window_strides(m);
  Ints out_pad = m.attr_ints("output_padding").value_or(Ints{0, 0});
  if (out_pad.size() != 2)
    m.fail("output_padding must have 2 values for a 2-D window");
  if (!window_values(out_pad, 0))
    m.fail("output_padding must be from 0 to 2^31");
  const Ints pads = conv_transpose_pads(m, m.shape(x), m.shape(w), s, out_pad);
  const ValueRef y = m.add(
      OpKind::ConvTranspose,
      make_attrs(OpKind::ConvTranspose, {{"s", s},
                                         {"pads", pads},
                                         {"out_pad", out_pad},
                                         {"groups", m.attr_int("group", 1)}}),
      {x, w});
  m.set_output(0, add_bias(m, y));
}

/// MaxPool's or AveragePool's windows over `x` (of the node's input 0's
/// rank), as the node's attributes give them; `count_pad` in place of its
/// count_include_pad where given.
ValueRef pooled(I &m, ValueRef x, bool is_max,
                std::optional<bool> count_pad_given = std::nullopt) {
  const Shape sx = m.shape(x);
  require_2d(m, sx, "pooling", is_max);
  const bool ceil = m.attr_int("ceil_mode", 0) != 0;
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
  const bool count_pad =
      count_pad_given.value_or(m.attr_int("count_include_pad", 0) != 0);
  auto pad = algebra_padding(sx, *k, s, p);
  const bool padded =
      std::any_of(p.begin(), p.end(), [](int64_t v) { return v != 0; });
  if (pad && !is_max && padded && !count_pad)
    pad.reset(); // the algebra's average always counts padding
  if (ceil || span != *k)
    pad.reset();
  if (pad) {
    const OpKind kind = is_max ? OpKind::Pool2DMax : OpKind::Pool2DAvg;
    return m.add(
        kind, make_attrs(kind, {{"k", *k}, {"s", s}, {"pad", int64_t(*pad)}}),
        {x});
  }
  return m.add(
      OpKind::Pool2DExplicit,
      make_attrs(OpKind::Pool2DExplicit, {{"fn", int64_t(is_max ? 1 : 0)},
                                          {"k", *k},
                                          {"s", s},
                                          {"pads", p},
                                          {"count_pad", int64_t(count_pad)},
                                          {"d", d},
                                          {"ceil", int64_t(ceil)}}),
      {x});
}

void pool(I &m, bool is_max) {
  if (m.has_output(1))
    m.fail("its Indices output has no form in the algebra (a kernel runs it)");
  m.set_output(0, pooled(m, m.in(0), is_max));
}

Handler global_pool(OpKind kind) {
  return [kind](I &m) {
    const ValueRef x = m.in(0);
    const Shape sx = m.shape(x);
    if (sx.rank() > 4) {
      // Over [n, c, depth, h, w] (what video networks end with): the mean
      // or max of every spatial axis, kept as extents of 1.
      std::vector<int64_t> axes;
      for (int a = 2; a < sx.rank(); ++a)
        axes.push_back(a);
      const ValueRef y =
          kind == OpKind::Pool2DMax
              ? reduce_over(m, ops::ReduceFn::Max, x, axes)
              : m.add(OpKind::ReduceMean,
                      make_attrs(OpKind::ReduceMean,
                                 {{"axes", axes}, {"keepdims", int64_t{1}}}),
                      {x});
      m.set_output(0, y);
      return;
    }
    require_2d(m, sx, "pooling");
    m.set_output(0, m.add(kind,
                          make_attrs(kind, {{"k", Ints{sx[2], sx[3]}},
                                            {"pad", int64_t(Padding::Valid)}}),
                          {x}));
  };
}

/// LpPool and GlobalLpPool: (sum over each window of |x|^p)^(1/p). The
/// window sums are averages that count their padding (zeros, which add
/// nothing) times the window's size; the global one is a sum over every
/// spatial axis.
void lp_pool(I &m, bool global) {
  const int64_t p = m.attr_int("p", 2);
  if (p < 1 || p > 64)
    m.fail("p must be from 1 to 64, not " + std::to_string(p));
  const ValueRef x = m.in(0);
  const Shape sx = m.shape(x);
  if (sx.rank() < 3)
    m.fail("X " + sx.str() + " must have a spatial axis");
  const std::string base = m.node().output(0) + "#lp";
  auto scalar = [&](const char *hint, float v) {
    return m.constant_weight(base + hint, Tensor<float>(Shape{}, v));
  };
  ValueRef powered = pointwise(m, ops::PointwiseFn::Abs, x);
  if (p > 1)
    powered = binary(m, BroadcastFn::Pow, powered,
                     scalar("p", static_cast<float>(p)));
  ValueRef sum;
  if (global) {
    std::vector<int64_t> axes;
    for (int a = 2; a < sx.rank(); ++a)
      axes.push_back(a);
    sum = reduce_over(m, ops::ReduceFn::Sum, powered, axes);
  } else {
    if (m.attr_int("ceil_mode", 0) != 0)
      m.fail("ceil_mode is not supported (a last window past the padding "
             "would be scaled by more than it holds)");
    const auto k = m.attr_ints("kernel_shape");
    if (!k || k->empty())
      m.fail("kernel_shape is required");
    double taps = 1;
    for (int64_t e : *k)
      taps *= static_cast<double>(e);
    const ValueRef mean = pooled(m, powered, false, true);
    sum = binary(m, BroadcastFn::Mul, mean,
                 scalar("taps", static_cast<float>(taps)));
  }
  m.set_output(0, p == 1 ? sum
                  : p == 2
                      ? pointwise(m, ops::PointwiseFn::Sqrt, sum)
                      : binary(m, BroadcastFn::Pow, sum,
                               scalar("root", 1.0f / static_cast<float>(p))));
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

} // namespace

void add_window_handlers(std::map<std::string, Handler, std::less<>> &table) {
  table.emplace("Conv", conv);
  table.emplace("ConvTranspose", conv_transpose);
  table.emplace("BatchNormalization", batchnorm);
  table.emplace("MaxPool", [](I &m) { pool(m, true); });
  table.emplace("AveragePool", [](I &m) { pool(m, false); });
  table.emplace("GlobalAveragePool", global_pool(OpKind::Pool2DAvg));
  table.emplace("GlobalMaxPool", global_pool(OpKind::Pool2DMax));
  table.emplace("LpPool", [](I &m) { lp_pool(m, false); });
  table.emplace("GlobalLpPool", [](I &m) { lp_pool(m, true); });
}

} // namespace quarry::onnx_io
