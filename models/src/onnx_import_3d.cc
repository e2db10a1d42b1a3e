//===- onnx_import_3d.cc - 3-D convolutions and pooling as 2-D ------------===//
//
// A window operator over [n, c, depth, h, w] is its 2-D form applied once
// per tap of the kernel's depth: the input, padded along depth, is turned
// to [n, depth, c, h, w]; for tap k the depths the windows read at that
// tap (every stride-th from k times the dilation) become a batch of
// [n * depth_out, c, h, w], which the 2-D handler takes with the 2-D
// attributes; the taps' results are summed (Conv), maximized (MaxPool) or
// averaged (AveragePool, divided by the depths each window counts), and
// turned back to [n, c_out, depth_out, h_out, w_out]. A kernel of depth k
// costs k 2-D operators. A transposed convolution runs its 2-D form for each
// tap over every input depth; tap k's results land on depths i * stride +
// k * dilation (stride - 1 zeros after each, then the tap's offset as
// padding), the taps are summed, and the pads cropped.
//
//===----------------------------------------------------------------------===//
#include "onnx_attrs.h"
#include "onnx_importer.h"
#include "onnx_window_pads.h"

#include <cmath>
#include <limits>
#include <optional>

namespace quarry::onnx_io {

namespace {

using I = Importer;
using Ints = std::vector<int64_t>;
using ops::BroadcastFn;

enum class Kind { Conv, MaxPool, AveragePool };

/// The extents (k - 1) * d + 1 of dilated kernel extents `k` (from index
/// `from` on).
Ints spans(const Ints &k, const Ints &d, size_t from = 0) {
  Ints out;
  for (size_t a = 0; a < d.size(); ++a)
    out.push_back((k[from + a] - 1) * d[a] + 1);
  return out;
}

/// Three values of window attribute `name` (`def` each when absent).
Ints three(I &m, const char *name, int64_t def) {
  Ints v = m.attr_ints(name).value_or(Ints(3, def));
  if (v.size() != 3)
    m.fail(std::string(name) + " must have 3 values for a 3-D window, not " +
           std::to_string(v.size()));
  return v;
}

/// Kernel tap `k` of depth of the 5-D kernel (input 1), where it is a
/// constant, as a 4-D constant.
std::optional<Constant> constant_tap(I &m, int64_t k) {
  const Constant *w = m.const_in(1);
  if (!w)
    return std::nullopt;
  const Shape &sw = w->shape;
  Constant t;
  t.shape = Shape{sw[0], sw[1], sw[3], sw[4]};
  const int64_t plane = sw[3] * sw[4];
  for (int64_t oc = 0; oc < sw[0] * sw[1]; ++oc)
    for (int64_t p = 0; p < plane; ++p)
      t.reals.push_back(
          w->reals[static_cast<size_t>((oc * sw[2] + k) * plane + p)]);
  return t;
}

/// Kernel tap `k` of depth of the 5-D kernel (input 1) as a 4-D kernel.
ValueRef kernel_tap(I &m, int64_t k) {
  if (auto t = constant_tap(m, k))
    return m.constant_weight(m.node().output(0) + "_tap" + std::to_string(k),
                             t->as_float());
  const Shape sw = m.input_shape(1);
  return reshape_to(m, slice_along(m, m.in(1), 2, k, k + 1),
                    {sw[0], sw[1], sw[3], sw[4]});
}

Handler depth_taps(Kind kind, Handler two_d) {
  return [kind, two_d](I &m) {
    if (m.input_shape(0).rank() != 5)
      return two_d(m);
    const onnx::NodeProto &node = m.node();
    const Shape sx = m.input_shape(0);
    if (kind == Kind::MaxPool && m.has_output(1))
      m.fail(
          "its Indices output has no form in the algebra (a kernel runs it)");
    Ints k;
    if (kind == Kind::Conv) {
      const Shape sw = m.input_shape(1);
      if (sw.rank() != 5)
        m.fail("the kernel " + sw.str() + " is not 5-D");
      k = {sw[2], sw[3], sw[4]};
    } else {
      k = three(m, "kernel_shape", 0);
    }
    const Ints s = three(m, "strides", 1), d = three(m, "dilations", 1);
    Ints p = m.attr_ints("pads").value_or(Ints(6, 0));
    if (p.size() != 6)
      m.fail("pads must have 6 values for a 3-D window");
    for (int a = 0; a < 3; ++a)
      if (k[a] < 1 || s[a] < 1 || d[a] < 1 || p[a] < 0 || p[a + 3] < 0)
        m.fail("kernel, strides and dilations must be positive, pads at "
               "least 0");
    const std::string auto_pad = m.attr_string("auto_pad", "NOTSET");
    if (auto_pad == "VALID")
      p.assign(6, 0);
    else if (auto_pad != "NOTSET")
      p = same_pads({sx[2], sx[3], sx[4]}, spans(k, d), s,
                    auto_pad != "SAME_LOWER");
    const int64_t depth = sx[2], extent = (k[0] - 1) * d[0] + 1;
    const int64_t padded = depth + p[0] + p[3];
    if (padded < extent)
      m.fail("the kernel's depth " + std::to_string(extent) +
             " is past the padded input's " + std::to_string(padded));
    const int64_t out = (padded - extent) / s[0] + 1;
    if (m.attr_int("ceil_mode", 0) != 0 && (padded - extent) % s[0] != 0)
      m.fail("ceil_mode that adds a window along depth is not supported");

    // Depth padding: zeros, or for MaxPool what never wins.
    ValueRef x = m.in(0);
    if (p[0] > 0 || p[3] > 0)
      x = m.add(
          OpKind::Pad,
          make_attrs(OpKind::Pad,
                     {{"pads", Ints{0, 0, p[0], 0, 0, 0, 0, p[3], 0, 0}},
                      {"value", kind == Kind::MaxPool
                                    ? double(-std::numeric_limits<float>::max())
                                    : 0.0}}),
          {x});
    x = transpose(m, x, {0, 2, 1, 3, 4});
    onnx::NodeProto n;
    n.set_op_type(node.op_type());
    n.set_name(node.name().empty() ? node.output(0) : node.name());
    add_attr(n, "kernel_shape", Ints{k[1], k[2]});
    add_attr(n, "strides", Ints{s[1], s[2]});
    add_attr(n, "pads", Ints{p[1], p[2], p[4], p[5]});
    add_attr(n, "dilations", Ints{d[1], d[2]});
    for (const char *a : {"group", "ceil_mode", "count_include_pad"})
      if (m.attr(a))
        add_attr(n, a, m.attr_int(a, 0));
    const std::string base = node.output(0) + "#tap";
    ValueRef acc{};
    Shape one;
    for (int64_t tap = 0; tap < k[0]; ++tap) {
      const int64_t from = tap * d[0];
      const ValueRef rows =
          slice_along(m, x, 1, from, from + (out - 1) * s[0] + 1, s[0]);
      const std::string in = base + std::to_string(tap);
      m.define(in, reshape_to(m, rows, {sx[0] * out, sx[1], sx[3], sx[4]}));
      n.clear_input();
      n.add_input(in);
      if (kind == Kind::Conv) {
        m.define(in + "w", kernel_tap(m, tap));
        n.add_input(in + "w");
        if (tap == 0 && m.has_input(2))
          n.add_input(node.input(2));
      }
      n.clear_output();
      n.add_output(in + "out");
      m.run_as(n, two_d);
      const ValueRef r = m.value(in + "out");
      one = m.shape(r);
      acc = tap == 0 ? r
                     : binary(m,
                              kind == Kind::MaxPool ? BroadcastFn::Max
                                                    : BroadcastFn::Add,
                              acc, r);
    }
    if (kind == Kind::AveragePool) {
      // Each window's mean over the depths it counts: all k taps with
      // count_include_pad, else those that fall inside the input.
      const bool all = m.attr_int("count_include_pad", 0) != 0;
      Tensor<float> scale(Shape{sx[0] * out, 1, 1, 1}, 0.0f);
      for (int64_t b = 0; b < sx[0]; ++b)
        for (int64_t o = 0; o < out; ++o) {
          int64_t counted = 0;
          for (int64_t tap = 0; tap < k[0]; ++tap) {
            const int64_t at = o * s[0] + tap * d[0] - p[0];
            counted += all || (at >= 0 && at < depth);
          }
          scale[b * out + o] =
              1.0f / static_cast<float>(std::max<int64_t>(counted, 1));
        }
      acc = binary(
          m, BroadcastFn::Mul, acc,
          m.constant_weight(node.output(0) + "_depths", std::move(scale)));
    }
    const ValueRef y = reshape_to(m, acc, {sx[0], out, one[1], one[2], one[3]});
    m.set_output(0, transpose(m, y, {0, 2, 1, 3, 4}));
  };
}

/// ConvTranspose over [n, c, depth, h, w]: pads given, or from auto_pad
/// or output_shape (onnx_window_pads.h), and output_padding.
Handler transposed_depth_taps(Handler two_d) {
  return [two_d](I &m) {
    if (m.input_shape(0).rank() != 5)
      return two_d(m);
    const onnx::NodeProto &node = m.node();
    const Shape sx = m.input_shape(0), sw = m.input_shape(1);
    if (sw.rank() != 5 || sw[0] != sx[1])
      m.fail("the kernel " + sw.str() + " does not match input " + sx.str());
    const Ints s = three(m, "strides", 1), d = three(m, "dilations", 1);
    Ints op = three(m, "output_padding", 0);
    if (op[0] >= std::max(s[0], d[0]))
      m.fail("output_padding of depth " + std::to_string(op[0]) +
             " must be below the stride or the dilation");
    Ints p = m.attr_ints("pads").value_or(Ints(6, 0));
    if (p.size() != 6)
      m.fail("pads must have 6 values for a 3-D window");
    for (int a = 0; a < 3; ++a)
      if (s[a] < 1 || s[a] > 4096 || d[a] < 1 || d[a] > 4096 || op[a] < 0 ||
          op[a] > 4096 || sw[a + 2] < 1 || sw[a + 2] > 4096)
        m.fail("kernel, strides, dilations or output_padding out of range");
    const std::string mode = m.attr_string("auto_pad", "NOTSET");
    const auto shape = m.attr_ints("output_shape");
    if (mode == "VALID") {
      p.assign(6, 0);
    } else if (mode != "NOTSET" || shape) {
      if (mode != "NOTSET" && mode != "SAME_UPPER" && mode != "SAME_LOWER")
        m.fail("auto_pad " + mode + " is not supported");
      if (shape && shape->size() < 3)
        m.fail("output_shape needs the output's depth, height and width");
      const Ints in{sx[2], sx[3], sx[4]};
      const Ints out = shape ? Ints(shape->end() - 3, shape->end())
                             : Ints{in[0] * s[0], in[1] * s[1], in[2] * s[2]};
      const auto given = transposed_pads(in, spans(sw.dims, d, 2), s, out,
                                         mode == "SAME_UPPER", op);
      if (!given)
        m.fail("output_shape, strides and output_padding give pads beyond "
               "2^40");
      p = *given;
    }
    const int64_t depth = sx[2], k = sw[2];
    if (k < 1 || k > 4096)
      m.fail("the kernel's depth " + std::to_string(k) +
             " is not from 1 to 4096");
    if (p[0] < 0 || p[3] < 0)
      m.fail("pads of depth must be at least 0");
    // Every depth the taps write, before the pads are cropped.
    const int64_t full = s[0] * (depth - 1) + (k - 1) * d[0] + 1 + op[0];
    if (full - p[0] - p[3] < 1)
      m.fail("the pads crop every output depth");
    const int64_t spread = (depth - 1) * s[0] + 1;
    onnx::NodeProto n;
    n.set_op_type(node.op_type());
    n.set_name(node.name().empty() ? node.output(0) : node.name());
    add_attr(n, "strides", Ints{s[1], s[2]});
    add_attr(n, "dilations", Ints{d[1], d[2]});
    add_attr(n, "pads", Ints{p[1], p[2], p[4], p[5]});
    add_attr(n, "output_padding", Ints{op[1], op[2]});
    if (m.attr("group"))
      add_attr(n, "group", m.attr_int("group", 1));
    const ValueRef x = reshape_to(m, transpose(m, m.in(0), {0, 2, 1, 3, 4}),
                                  {sx[0] * depth, sx[1], sx[3], sx[4]});
    const std::string base = node.output(0) + "#tap";
    m.define(base + "x", x);
    ValueRef acc{};
    Shape one;
    for (int64_t tap = 0; tap < k; ++tap) {
      const std::string in = base + std::to_string(tap);
      // A constant tap stays one: the 2-D form dilates it
      // (onnx_import_windows.cc).
      if (auto t = constant_tap(m, tap))
        m.define_const(in + "w", std::move(*t));
      else
        m.define(in + "w", kernel_tap(m, tap));
      n.clear_input();
      n.add_input(base + "x");
      n.add_input(in + "w");
      n.clear_output();
      n.add_output(in + "out");
      m.run_as(n, two_d);
      const ValueRef r = m.value(in + "out");
      one = m.shape(r); // [n * depth, co, h', w']
      const int64_t plane = one[1] * one[2] * one[3];
      // Input depth i at i * stride: stride - 1 zeros after each.
      ValueRef spaced = reshape_to(m, r, {sx[0], depth, 1, plane});
      if (s[0] > 1)
        spaced = slice_along(
            m,
            reshape_to(
                m,
                m.add(OpKind::Pad,
                      make_attrs(OpKind::Pad, {{"pads", Ints{0, 0, 0, 0, 0, 0,
                                                             s[0] - 1, 0}}}),
                      {spaced}),
                {sx[0], depth * s[0], plane}),
            1, 0, spread);
      else
        spaced = reshape_to(m, spaced, {sx[0], depth, plane});
      const int64_t before = tap * d[0], after = full - spread - before;
      const ValueRef placed = m.add(
          OpKind::Pad,
          make_attrs(OpKind::Pad, {{"pads", Ints{0, before, 0, 0, after, 0}}}),
          {spaced});
      acc = tap == 0 ? placed : binary(m, BroadcastFn::Add, acc, placed);
    }
    const int64_t out = full - p[0] - p[3];
    const ValueRef cropped = slice_along(m, acc, 1, p[0], p[0] + out);
    ValueRef y = transpose(
        m, reshape_to(m, cropped, {sx[0], out, one[1], one[2], one[3]}),
        {0, 2, 1, 3, 4});
    if (m.has_input(2))
      y = binary(m, BroadcastFn::Add, y,
                 reshape_to(m, m.in(2), {one[1], 1, 1, 1}));
    m.set_output(0, y);
  };
}

} // namespace

void add_3d_window_handlers(
    std::map<std::string, Handler, std::less<>> &table) {
  const std::pair<const char *, Kind> ops[] = {
      {"Conv", Kind::Conv},
      {"MaxPool", Kind::MaxPool},
      {"AveragePool", Kind::AveragePool}};
  for (const auto &[op, kind] : ops)
    if (auto it = table.find(op); it != table.end())
      it->second = depth_taps(kind, it->second);
  if (auto it = table.find("ConvTranspose"); it != table.end())
    it->second = transposed_depth_taps(it->second);
}

} // namespace quarry::onnx_io
