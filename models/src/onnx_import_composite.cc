//===- onnx_import_composite.cc - ONNX operators as several quarry ones ---===//
//
// Operators quarry has no operator for but can state exactly with the ones
// it has: normalizations as reductions and broadcasts, LogSoftmax through
// log-sum-exp, PRelu, Sum and Mean, and 1-D convolution and pooling as
// their 2-D forms over a height of 1 (3-D ones: onnx_import_3d.cc). RNN,
// GRU and LSTM, unrolled, are in onnx_import_recurrent.cc.
//
//===----------------------------------------------------------------------===//
#include "onnx_importer.h"

namespace quarry::onnx_io {

ValueRef reshape_to(Importer &m, ValueRef x, std::vector<int64_t> dims) {
  if (m.shape(x) == Shape(dims))
    return x;
  return m.add(OpKind::Reshape,
               make_attrs(OpKind::Reshape, {{"shape", std::move(dims)}}), {x});
}

ValueRef pointwise(Importer &m, ops::PointwiseFn fn, ValueRef x) {
  return m.add(
      OpKind::Pointwise,
      make_attrs(OpKind::Pointwise, {{"fn", static_cast<int64_t>(fn)}}), {x});
}

ValueRef reduce_over(Importer &m, ops::ReduceFn fn, ValueRef x,
                     const std::vector<int64_t> &axes, bool keepdims) {
  return m.add(OpKind::Reduce,
               make_attrs(OpKind::Reduce, {{"fn", static_cast<int64_t>(fn)},
                                           {"axes", axes},
                                           {"keepdims", int64_t{keepdims}}}),
               {x});
}

ValueRef slice_along(Importer &m, ValueRef x, int64_t axis, int64_t start,
                     int64_t end, int64_t step) {
  return m.add(
      OpKind::Slice,
      make_attrs(OpKind::Slice, {{"starts", std::vector<int64_t>{start}},
                                 {"ends", std::vector<int64_t>{end}},
                                 {"axes", std::vector<int64_t>{axis}},
                                 {"steps", std::vector<int64_t>{step}}}),
      {x});
}

ValueRef run_node(Importer &m, const std::string &op,
                  const std::vector<std::string> &inputs,
                  const std::string &out,
                  const std::vector<onnx::AttributeProto> &attrs) {
  onnx::NodeProto n;
  n.set_op_type(op);
  n.set_name(m.node().name());
  for (const auto &i : inputs)
    n.add_input(i);
  n.add_output(out);
  for (const auto &a : attrs)
    *n.add_attribute() = a;
  m.run_as(n, onnx_handlers().at(op));
  return m.value(out);
}

namespace {

using I = Importer;
using Ints = std::vector<int64_t>;
using ops::BroadcastFn;

ValueRef scalar(I &m, const std::string &hint, float v) {
  return m.constant_weight(hint, Tensor<float>(Shape{1}, v));
}

ValueRef mean(I &m, ValueRef x, const Ints &axes) {
  return m.add(OpKind::ReduceMean,
               make_attrs(OpKind::ReduceMean,
                          {{"axes", axes}, {"keepdims", int64_t{1}}}),
               {x});
}

/// (x - mean) / sqrt(var + eps) over `axes`, as ONNX's own function bodies
/// of LayerNormalization and InstanceNormalization compute it; the mean and
/// the deviation kept (reduced axes of extent 1) for LayerNormalization's
/// optional outputs.
struct Normalized {
  ValueRef y, mean, stdev;
};
Normalized normalized(I &m, ValueRef x, const Ints &axes, float eps) {
  const ValueRef mu = mean(m, x, axes);
  const ValueRef d = binary(m, BroadcastFn::Sub, x, mu);
  const ValueRef var = mean(m, m.add(OpKind::EwMul, {d, d}), axes);
  const ValueRef stdev =
      pointwise(m, ops::PointwiseFn::Sqrt,
                binary(m, BroadcastFn::Add, var,
                       scalar(m, m.node().output(0) + "_eps", eps)));
  return {binary(m, BroadcastFn::Div, d, stdev), mu, stdev};
}

void layer_normalization(I &m) {
  const ValueRef x = m.in(0);
  const int r = m.shape(x).rank();
  const int axis = m.axis(m.attr_int("axis", -1), r);
  // One operator, which export writes back as one node, where only Y is
  // used and scale and bias hold a value per element of a row; else what
  // ONNX's function body computes.
  const float eps = m.attr_float("epsilon", 1e-5f);
  Attrs attrs = make_attrs(OpKind::LayerNorm,
                           {{"axis", int64_t{axis}}, {"eps", double{eps}}});
  const int64_t row = ops::LayerNorm::rows(attrs, m.shape(x)).second;
  const bool whole = m.input_shape(1).numel() == row &&
                     (!m.has_input(2) || m.input_shape(2).numel() == row);
  if (whole && !m.has_output(1) && !m.has_output(2)) {
    std::vector<ValueRef> in{x, m.in(1)};
    if (m.has_input(2))
      in.push_back(m.in(2));
    m.set_output(0, m.add(OpKind::LayerNorm, std::move(attrs), std::move(in)));
    return;
  }
  Ints axes;
  for (int i = axis; i < r; ++i)
    axes.push_back(i);
  const Normalized n = normalized(m, x, axes, eps);
  ValueRef y = binary(m, BroadcastFn::Mul, n.y, m.in(1));
  if (m.has_input(2))
    y = binary(m, BroadcastFn::Add, y, m.in(2));
  m.set_output(0, y);
  m.set_output(1, n.mean);
  if (m.has_output(2))
    m.set_output(2, pointwise(m, ops::PointwiseFn::Reciprocal, n.stdev));
}

void instance_normalization(I &m) {
  const ValueRef x = m.in(0);
  const Shape sx = m.shape(x);
  if (sx.rank() < 3)
    m.fail("input " + sx.str() + " has no spatial axes");
  Ints axes, per_channel{sx[1]};
  for (int i = 2; i < sx.rank(); ++i) {
    axes.push_back(i);
    per_channel.push_back(1);
  }
  ValueRef y = normalized(m, x, axes, m.attr_float("epsilon", 1e-5f)).y;
  y = binary(m, BroadcastFn::Mul, y, reshape_to(m, m.in(1), per_channel));
  m.set_output(
      0, binary(m, BroadcastFn::Add, y, reshape_to(m, m.in(2), per_channel)));
}

/// (x - mean) / sqrt(var) over `axes` (default 0, 2, 3), ONNX's
/// MeanVarianceNormalization. Its function adds epsilon 1e-9 after the root
/// where this adds it under: the same floats unless the variance is ~0.
void mean_variance_normalization(I &m) {
  const ValueRef x = m.in(0);
  Ints axes = m.attr_ints("axes").value_or(Ints{0, 2, 3});
  for (int64_t &a : axes)
    a = m.axis(a, m.shape(x).rank());
  m.set_output(0, normalized(m, x, axes, 1e-9f).y);
}

/// Local response normalization across channels:
/// x / (bias + alpha / size * sum of x^2 over the size channels around)^beta,
/// the window sum as an average pool (padding counted) over a [n, 1, c, hw]
/// view, times size.
void lrn(I &m) {
  const ValueRef x = m.in(0);
  const Shape s = m.shape(x);
  if (s.rank() < 3)
    m.fail("input " + s.str() + " has no spatial axes");
  const int64_t size = m.attr_int("size", 0);
  if (size < 1)
    m.fail("size must be positive");
  int64_t spatial = 1;
  for (int i = 2; i < s.rank(); ++i)
    spatial *= s[i];
  const float alpha = m.attr_float("alpha", 1e-4f),
              beta = m.attr_float("beta", 0.75f),
              bias = m.attr_float("bias", 1.0f);
  const int64_t before = (size - 1) / 2, after = size - 1 - before;
  const ValueRef sq =
      reshape_to(m, m.add(OpKind::EwMul, {x, x}), {s[0], 1, s[1], spatial});
  const ValueRef window = m.add(
      OpKind::Pool2DExplicit,
      make_attrs(OpKind::Pool2DExplicit, {{"fn", int64_t{0}},
                                          {"k", Ints{size, 1}},
                                          {"s", Ints{1, 1}},
                                          {"pads", Ints{before, 0, after, 0}},
                                          {"count_pad", int64_t{1}}}),
      {sq});
  // bias + alpha / size * (size * mean) = bias + alpha * mean
  ValueRef d = binary(m, BroadcastFn::Mul, reshape_to(m, window, s.dims),
                      scalar(m, m.node().output(0) + "_alpha", alpha));
  d = binary(m, BroadcastFn::Add, d,
             scalar(m, m.node().output(0) + "_bias", bias));
  d = binary(m, BroadcastFn::Pow, d,
             scalar(m, m.node().output(0) + "_beta", beta));
  m.set_output(0, binary(m, BroadcastFn::Div, x, d));
}

/// x - max - log(sum(e^(x - max))) over the axis (before opset 13: the
/// axis and every axis after it, as Softmax then normalized).
void log_softmax(I &m) {
  const ValueRef x = m.in(0);
  const int r = m.shape(x).rank();
  const int axis = m.axis(m.attr_int("axis", m.opset() < 13 ? 1 : -1), r);
  Ints axes{axis};
  if (m.opset() < 13)
    for (int i = axis + 1; i < r; ++i)
      axes.push_back(i);
  const ValueRef d = binary(m, BroadcastFn::Sub, x,
                            reduce_over(m, ops::ReduceFn::Max, x, axes));
  m.set_output(0, binary(m, BroadcastFn::Sub, d,
                         reduce_over(m, ops::ReduceFn::LogSumExp, d, axes)));
}

/// max(x, 0) + slope * min(x, 0): exact, slope broadcast to x (before
/// opset 7, a 1-D slope of x's channel count is per channel).
void prelu(I &m) {
  const ValueRef x = m.in(0);
  ValueRef slope = m.in(1);
  const Shape sx = m.shape(x), ss = m.shape(slope);
  if (m.opset() < 7 && ss.rank() == 1 && sx.rank() > 2 && ss[0] == sx[1] &&
      ss[0] != sx[sx.rank() - 1]) {
    Ints dims{ss[0]};
    dims.resize(sx.rank() - 1, 1);
    slope = reshape_to(m, slope, dims);
  }
  const ValueRef zero = scalar(m, m.node().output(0) + "_zero", 0.0f);
  const ValueRef neg = binary(m, BroadcastFn::Min, x, zero);
  const ValueRef pos = binary(m, BroadcastFn::Max, x, zero);
  m.set_output(0, binary(m, BroadcastFn::Add, pos,
                         binary(m, BroadcastFn::Mul, neg, slope)));
}

ValueRef sum_of_inputs(I &m) {
  ValueRef acc = m.in(0);
  for (int i = 1; i < m.num_inputs(); ++i)
    acc = binary(m, BroadcastFn::Add, acc, m.in(i));
  return acc;
}

void sum(I &m) { m.set_output(0, sum_of_inputs(m)); }

void mean_of_inputs(I &m) {
  const ValueRef s = sum_of_inputs(m);
  if (m.num_inputs() == 1)
    return m.set_output(0, s);
  m.set_output(0, binary(m, BroadcastFn::Div, s,
                         scalar(m, m.node().output(0) + "_n",
                                static_cast<float>(m.num_inputs()))));
}

/// DepthToSpace (DCR or CRD order) and SpaceToDepth as reshape, transpose,
/// reshape, the way ONNX defines them.
void depth_to_space(I &m) {
  const ValueRef x = m.in(0);
  const Shape s = m.shape(x);
  const int64_t b = m.attr_int("blocksize", 0);
  if (s.rank() != 4 || b < 1 || s[1] % (b * b) != 0)
    m.fail("needs a [n, c, h, w] input with c divisible by blocksize^2");
  const int64_t n = s[0], c = s[1] / (b * b), h = s[2], w = s[3];
  const bool crd = m.attr_string("mode", "DCR") == "CRD";
  const ValueRef t = crd ? transpose(m, reshape_to(m, x, {n, c, b, b, h, w}),
                                     {0, 1, 4, 2, 5, 3})
                         : transpose(m, reshape_to(m, x, {n, b, b, c, h, w}),
                                     {0, 3, 4, 1, 5, 2});
  m.set_output(0, reshape_to(m, t, {n, c, h * b, w * b}));
}

void space_to_depth(I &m) {
  const ValueRef x = m.in(0);
  const Shape s = m.shape(x);
  const int64_t b = m.attr_int("blocksize", 0);
  if (s.rank() != 4 || b < 1 || s[2] % b != 0 || s[3] % b != 0)
    m.fail("needs a [n, c, h, w] input with h and w divisible by blocksize");
  const int64_t n = s[0], c = s[1], h = s[2] / b, w = s[3] / b;
  const ValueRef t =
      transpose(m, reshape_to(m, x, {n, c, h, b, w, b}), {0, 3, 5, 1, 2, 4});
  m.set_output(0, reshape_to(m, t, {n, c * b * b, h, w}));
}

/// Tile with constant repeats: the operand concatenated with itself along
/// each axis.
/// The most copies Tile concatenates along one axis.
constexpr int64_t kMostTileCopies = int64_t{1} << 16;

void tile(I &m) {
  ValueRef y = m.in(0);
  const Ints repeats = m.need_const(1, "repeats").ints;
  if (static_cast<int>(repeats.size()) != m.shape(y).rank())
    m.fail("repeats has " + std::to_string(repeats.size()) +
           " values for rank " + std::to_string(m.shape(y).rank()));
  // Bounded before anything is built: repeats a model computes can ask
  // for more than any machine holds.
  double elements = static_cast<double>(m.shape(y).numel());
  for (int64_t r : repeats) {
    if (r < 1)
      m.fail("repeats must be positive");
    if (r > kMostTileCopies)
      m.fail("repeats of " + std::to_string(r) + " along one axis are more " +
             "than " + std::to_string(kMostTileCopies));
    elements *= static_cast<double>(r);
  }
  if (elements > static_cast<double>(int64_t{1} << 31))
    m.fail("repeats ask for " + std::to_string(elements) +
           " elements, more than 2^31");
  for (size_t a = 0; a < repeats.size(); ++a) {
    if (repeats[a] == 1)
      continue;
    std::vector<ValueRef> copies(static_cast<size_t>(repeats[a]), y);
    y = m.add(OpKind::Concat,
              make_attrs(OpKind::Concat, {{"axis", static_cast<int64_t>(a)}}),
              copies);
  }
  m.set_output(0, y);
}

/// A 2-D window attribute from a 1-D one: `lead` first (1 for extents and
/// strides, 0 for output padding); pads [b, e] become [0, b, 0, e].
void lift_attribute(onnx::AttributeProto &a) {
  if (a.type() != onnx::AttributeProto::INTS)
    return;
  const Ints v(a.ints().begin(), a.ints().end());
  Ints lifted;
  if (a.name() == "pads" && v.size() == 2)
    lifted = {0, v[0], 0, v[1]};
  else if ((a.name() == "kernel_shape" || a.name() == "strides" ||
            a.name() == "dilations") &&
           v.size() == 1)
    lifted = {1, v[0]};
  else if ((a.name() == "output_padding" || a.name() == "output_shape") &&
           v.size() == 1)
    lifted = {0, v[0]};
  else
    return;
  a.clear_ints();
  for (int64_t x : lifted)
    a.add_ints(x);
}

/// Runs the 2-D handler `h` on a 1-D window operator ([n, c, length]
/// operands) over a height of 1: operands 0 and 1 (data and weight) gain
/// an axis at 2, attributes are lifted, and the result loses the axis.
Handler lifted_1d(Handler h) {
  return [h](I &m) {
    if (m.input_shape(0).rank() != 3)
      return h(m);
    const onnx::NodeProto &orig = m.node();
    onnx::NodeProto n = orig;
    if (n.name().empty())
      n.set_name(orig.output(0));
    for (auto &a : *n.mutable_attribute())
      lift_attribute(a);
    for (int i = 0; i < std::min(2, m.num_inputs()); ++i) {
      const std::string name = orig.input(i) + "#2d";
      Shape s = m.input_shape(i);
      if (s.rank() != 3)
        m.fail("operand " + std::to_string(i) + " " + s.str() +
               " is not 1-D [n, c, length]");
      Ints dims{s[0], s[1], 1, s[2]};
      if (const Constant *c = m.const_in(i)) {
        Constant lifted = *c;
        lifted.shape = Shape(dims);
        m.define_const(name, std::move(lifted));
      } else {
        m.define(name, reshape_to(m, m.in(i), dims));
      }
      n.set_input(i, name);
    }
    for (int i = 0; i < n.output_size(); ++i)
      if (!n.output(i).empty())
        n.set_output(i, orig.output(i) + "#2d");
    m.run_as(n, h);
    for (int i = 0; i < orig.output_size(); ++i) {
      if (orig.output(i).empty())
        continue;
      const ValueRef y = m.value(n.output(i));
      const Shape s = m.shape(y);
      m.set_output(i, reshape_to(m, y, Ints{s[0], s[1], s[3]}));
    }
  };
}

} // namespace

void add_composite_handlers(
    std::map<std::string, Handler, std::less<>> &table) {
  table.emplace("LayerNormalization", layer_normalization);
  table.emplace("InstanceNormalization", instance_normalization);
  table.emplace("LogSoftmax", log_softmax);
  table.emplace("PRelu", prelu);
  table.emplace("Sum", sum);
  table.emplace("Mean", mean_of_inputs);
  table.emplace("DepthToSpace", depth_to_space);
  table.emplace("SpaceToDepth", space_to_depth);
  table.emplace("Tile", tile);
  table.emplace("MeanVarianceNormalization", mean_variance_normalization);
  table.emplace("LRN", lrn);
  add_recurrent_handlers(table);
  add_logic_handlers(table);
  for (const char *op : {"Conv", "ConvTranspose", "MaxPool", "AveragePool",
                         "LpPool", "GlobalAveragePool", "GlobalMaxPool"}) {
    auto it = table.find(op);
    if (it != table.end())
      it->second = lifted_1d(it->second);
  }
  add_3d_window_handlers(table);
}

} // namespace quarry::onnx_io
