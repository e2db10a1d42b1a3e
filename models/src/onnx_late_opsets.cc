//===- onnx_late_opsets.cc - Operators as opsets 18 to 23 define them -----===//
#include "onnx_late_opsets.h"
#include "onnx_attrs.h"
#include "onnx_importer.h"
#include "onnx_kept.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace quarry::onnx_io {

namespace {

using Ints = std::vector<int64_t>;
using Nodes = std::vector<onnx::NodeProto>;

/// The reductions whose axes became an input at opset 18 (ReduceSum's did
/// at 13).
bool axes_became_input(const std::string &op) {
  static const std::set<std::string, std::less<>> kReductions = {
      "ReduceL1",   "ReduceL2",  "ReduceLogSum", "ReduceLogSumExp", "ReduceMax",
      "ReduceMean", "ReduceMin", "ReduceProd",   "ReduceSumSquare"};
  return kReductions.count(op) > 0;
}

void drop_attr(onnx::NodeProto &n, const char *name) {
  auto *attrs = n.mutable_attribute();
  attrs->erase(std::remove_if(attrs->begin(), attrs->end(),
                              [&](const auto &a) { return a.name() == name; }),
               attrs->end());
}

/// Keeps the first `count` inputs of `n`.
void keep_inputs(onnx::NodeProto &n, int count) {
  if (n.input_size() > count)
    n.mutable_input()->DeleteSubrange(count, n.input_size() - count);
}

/// `n` with attribute `name` set to `v`, in place of any it had.
template <class V>
void set_attr(onnx::NodeProto &n, const char *name, const V &v) {
  drop_attr(n, name);
  add_attr(n, name, v);
}

/// Operators born after opset 17 that quarry has no form of, with the
/// opset that introduced them.
const char *late_operator_missing(const std::string &op) {
  static const std::pair<const char *, const char *> kMissing[] = {
      {"BitwiseAnd", "18"},     {"BitwiseOr", "18"},     {"BitwiseXor", "18"},
      {"BitwiseNot", "18"},     {"CenterCropPad", "18"}, {"Col2Im", "18"},
      {"DeformConv", "19"},     {"AffineGrid", "20"},    {"ImageDecoder", "20"},
      {"RegexFullMatch", "20"}, {"StringConcat", "20"},  {"StringSplit", "20"}};
  for (const auto &[name, since] : kMissing)
    if (op == name)
      return since;
  return nullptr;
}

} // namespace

onnx::NodeProto make_node(const onnx::NodeProto &of, const std::string &type,
                          const std::vector<std::string> &in,
                          const std::vector<std::string> &out) {
  onnx::NodeProto k;
  k.set_op_type(type);
  k.set_name(of.name());
  for (const auto &i : in)
    k.add_input(i);
  for (const auto &o : out)
    k.add_output(o);
  return k;
}

std::string Importer::opset17_ints(const std::string &hint,
                                   const std::vector<int64_t> &v) {
  Constant c;
  c.elem = onnx::TensorProto::INT64;
  c.shape = Shape{static_cast<int64_t>(v.size())};
  c.ints = v;
  c.reals.assign(v.begin(), v.end());
  return opset17_constant(hint, std::move(c));
}

std::string Importer::opset17_floats(const std::string &hint, Shape shape,
                                     double v) {
  Constant c;
  c.shape = std::move(shape);
  c.reals.assign(static_cast<size_t>(c.shape.numel()), v);
  c.ints.assign(c.reals.size(), static_cast<int64_t>(v));
  return opset17_constant(hint, std::move(c));
}

std::string Importer::opset17_name(const std::string &hint) {
  std::string name = hint;
  for (int k = 2; values_.count(name) || constants_.contains(name) ||
                  untyped_.count(name) || opset17_names_.count(name);
       ++k)
    name = hint + "_" + std::to_string(k);
  opset17_names_.insert(name);
  return name;
}

std::string Importer::opset17_constant(const std::string &hint, Constant c) {
  const std::string name = opset17_name(hint);
  constants_.set(name, std::move(c));
  return name;
}

std::optional<std::vector<onnx::NodeProto>> Importer::opset17_form() {
  const onnx::NodeProto &n = *node_;
  if (opset_ <= kSchemaOpset || !default_domain(n.domain()))
    return std::nullopt;
  const std::string &op = n.op_type();
  const std::string base = n.output(0) + "/opset17";
  auto ints_constant = [&](const std::string &hint, const Ints &v) {
    return opset17_ints(base + "/" + hint, v);
  };
  auto float_constant = [&](const std::string &hint, Shape shape, double v) {
    return opset17_floats(base + "/" + hint, std::move(shape), v);
  };
  // The inputs a form reads; the checker has not seen the node.
  auto input = [&](int i) -> const std::string & {
    if (!has_input(i))
      fail("input " + std::to_string(i) + " is missing");
    return n.input(i);
  };
  // The conversions that need shapes need them fixed.
  auto shape0 = [&]() -> Shape {
    if (reads_untyped())
      fail("its opset-" + std::to_string(opset_) +
           " form needs the shape of what it reads, which is not fixed");
    input(0);
    return input_shape(0);
  };
  if (const char *since = late_operator_missing(op);
      since && opset_ >= std::stoi(since))
    fail("quarry does not have " + op + " (opset " + since + ")");
  // The operators born after 17, which ONNX 1.12's checker cannot check:
  // their inputs and outputs counted here (empty optional ones included).
  struct Arity {
    const char *op;
    int least_in, most_in, most_out;
  };
  static const Arity kArity[] = {{"Mish", 1, 1, 1},
                                 {"Gelu", 1, 1, 1},
                                 {"GroupNormalization", 3, 3, 1},
                                 {"RMSNormalization", 2, 2, 1},
                                 {"Attention", 3, 6, 4},
                                 {"RotaryEmbedding", 3, 4, 1}};
  for (const Arity &a : kArity)
    if (op == a.op &&
        (n.input_size() < a.least_in || n.input_size() > a.most_in ||
         n.output_size() > a.most_out))
      fail("takes " + std::to_string(a.least_in) +
           (a.most_in > a.least_in ? " to " + std::to_string(a.most_in) : "") +
           " inputs and at most " + std::to_string(a.most_out) +
           " outputs, not " + std::to_string(n.input_size()) + " and " +
           std::to_string(n.output_size()));

  // Reductions: axes as an input, and noop_with_empty_axes, from 18.
  if (axes_became_input(op) &&
      (has_input(1) || find_attr(n, "noop_with_empty_axes"))) {
    onnx::NodeProto k = n;
    drop_attr(k, "noop_with_empty_axes");
    keep_inputs(k, 1);
    Ints axes;
    if (has_input(1)) {
      const Constant &given = need_const(1, "axes");
      if (given.elem != onnx::TensorProto::INT64)
        fail("axes (input 1) must be int64, not " + elem_type_name(given.elem));
      axes = given.ints;
    }
    if (!axes.empty())
      set_attr(k, "axes", axes);
    else if (attr_int("noop_with_empty_axes", 0) != 0)
      k = make_node(n, "Identity", {input(0)}, {n.output(0)});
    return Nodes{k};
  }
  // Split: num_outputs from 18, the last part the smaller.
  if (op == "Split" && find_attr(n, "num_outputs")) {
    if (has_input(1))
      fail("takes split sizes or num_outputs, not both");
    const int64_t parts = attr_int("num_outputs", 0);
    if (parts != n.output_size())
      fail("num_outputs is " + std::to_string(parts) + " but it has " +
           std::to_string(n.output_size()) + " outputs");
    const Shape sx = shape0();
    const int a = axis(attr_int("axis", 0), sx.rank());
    const int64_t chunk = (sx[a] + parts - 1) / parts;
    Ints sizes(static_cast<size_t>(parts), chunk);
    sizes.back() = sx[a] - chunk * (parts - 1);
    if (sizes.back() < 1)
      fail("cannot split " + std::to_string(sx[a]) + " into " +
           std::to_string(parts) + " parts of " + std::to_string(chunk));
    onnx::NodeProto k = n;
    drop_attr(k, "num_outputs");
    keep_inputs(k, 1);
    k.add_input(ints_constant("split", sizes));
    return Nodes{k};
  }
  // Pad: the axes the pads are for, from 18; mode wrap from 19.
  if (op == "Pad" && (has_input(3) || attr_string("mode", "") == "wrap")) {
    if (attr_string("mode", "") == "wrap")
      fail("mode 'wrap' (opset 19) is not supported");
    const Ints &pads = need_const(1, "pads").ints;
    const Ints &axes = need_const(3, "axes").ints;
    const int r = shape0().rank();
    if (pads.size() != 2 * axes.size())
      fail("pads holds " + std::to_string(pads.size()) + " values for " +
           std::to_string(axes.size()) + " axes");
    Ints full(2 * static_cast<size_t>(r), 0);
    for (size_t i = 0; i < axes.size(); ++i) {
      const int a = axis(axes[i], r);
      full[a] = pads[i];
      full[a + r] = pads[i + axes.size()];
    }
    onnx::NodeProto k = n;
    keep_inputs(k, 1);
    k.add_input(ints_constant("pads", full));
    if (has_input(2))
      k.add_input(n.input(2));
    return Nodes{k};
  }
  // Resize: antialias, axes and keep_aspect_ratio_policy from 18.
  if (op == "Resize" && (find_attr(n, "antialias") || find_attr(n, "axes") ||
                         find_attr(n, "keep_aspect_ratio_policy") ||
                         attr_string("coordinate_transformation_mode", "") ==
                             "half_pixel_symmetric")) {
    if (attr_string("coordinate_transformation_mode", "") ==
        "half_pixel_symmetric")
      fail("coordinate_transformation_mode 'half_pixel_symmetric' (opset 19) "
           "is not supported");
    const Shape sx = shape0();
    const int r = sx.rank();
    Ints axes;
    for (int64_t a : attr_ints("axes").value_or(Ints{}))
      axes.push_back(axis(a, r));
    if (axes.empty())
      for (int i = 0; i < r; ++i)
        axes.push_back(i);
    const bool by_sizes = has_input(3) && !need_const(3, "sizes").ints.empty();
    const bool by_scales =
        !by_sizes && has_input(2) && !need_const(2, "scales").reals.empty();
    if (!by_sizes && !by_scales)
      fail("takes scales or sizes");
    const size_t given = by_sizes ? need_const(3, "sizes").ints.size()
                                  : need_const(2, "scales").reals.size();
    if (given != axes.size())
      fail(std::string(by_sizes ? "sizes" : "scales") + " holds " +
           std::to_string(given) + " values for " +
           std::to_string(axes.size()) + " axes");
    // The output's extent on every axis: sizes in full, or scales in full.
    std::vector<double> scales(static_cast<size_t>(r), 1.0);
    Ints sizes = sx.dims;
    if (by_sizes) {
      const Ints &asked = need_const(3, "sizes").ints;
      const std::string policy =
          attr_string("keep_aspect_ratio_policy", "stretch");
      if (policy != "stretch" && policy != "not_larger" &&
          policy != "not_smaller")
        fail("keep_aspect_ratio_policy '" + policy +
             "' is not one of "
             "stretch, not_larger, not_smaller");
      double scale = policy == "not_larger" ? HUGE_VAL : 0.0;
      for (size_t i = 0; i < axes.size(); ++i) {
        if (sx[axes[i]] < 1)
          fail("cannot resize an empty axis");
        const double s = static_cast<double>(asked[i]) / sx[axes[i]];
        scale =
            policy == "not_larger" ? std::min(scale, s) : std::max(scale, s);
      }
      for (size_t i = 0; i < axes.size(); ++i) {
        const double extent = policy == "stretch"
                                  ? static_cast<double>(asked[i])
                                  : std::nearbyint(scale * sx[axes[i]]);
        if (!(extent >= 1 && extent <= double(int64_t{1} << 40)))
          fail("sizes ask for an extent of " + std::to_string(extent));
        sizes[axes[i]] = static_cast<int64_t>(extent);
      }
      for (int i = 0; i < r; ++i)
        scales[i] = static_cast<double>(sizes[i]) / sx[i];
    } else {
      const auto &asked = need_const(2, "scales").reals;
      for (size_t i = 0; i < axes.size(); ++i)
        scales[axes[i]] = asked[i];
    }
    // Antialiasing changes only what shrinks, under linear or cubic.
    const bool shrinks = std::any_of(scales.begin(), scales.end(),
                                     [](double s) { return s < 1.0; });
    if (attr_int("antialias", 0) != 0 && shrinks &&
        attr_string("mode", "nearest") != "nearest")
      fail("antialias (opset 18) is not supported where it shrinks an axis");
    onnx::NodeProto k = n;
    for (const char *a : {"antialias", "axes", "keep_aspect_ratio_policy"})
      drop_attr(k, a);
    keep_inputs(k, 1);
    std::string roi;
    if (has_input(1) && !need_const(1, "roi").reals.empty()) {
      const auto &given_roi = need_const(1, "roi").reals;
      if (given_roi.size() != 2 * axes.size())
        fail("roi holds " + std::to_string(given_roi.size()) + " values for " +
             std::to_string(axes.size()) + " axes");
      Constant c;
      c.shape = Shape{2 * r};
      c.reals.assign(static_cast<size_t>(2 * r), 0.0);
      std::fill(c.reals.begin() + r, c.reals.end(), 1.0);
      for (size_t i = 0; i < axes.size(); ++i) {
        c.reals[axes[i]] = given_roi[i];
        c.reals[axes[i] + r] = given_roi[i + axes.size()];
      }
      c.ints.assign(c.reals.size(), 0);
      roi = opset17_constant(base + "/roi", std::move(c));
    }
    k.add_input(roi);
    if (by_sizes) {
      k.add_input("");
      k.add_input(ints_constant("sizes", sizes));
    } else {
      Constant c;
      c.shape = Shape{r};
      c.reals = scales;
      c.ints.assign(scales.size(), 0);
      k.add_input(opset17_constant(base + "/scales", std::move(c)));
    }
    return Nodes{k};
  }
  // GridSample's modes renamed at 20.
  if (op == "GridSample" && opset_ >= 20 &&
      (!find_attr(n, "mode") || attr_string("mode", "") == "linear" ||
       attr_string("mode", "") == "cubic")) {
    const std::string mode = attr_string("mode", "linear");
    onnx::NodeProto k = n;
    set_attr(k, "mode",
             mode == "linear"  ? std::string("bilinear")
             : mode == "cubic" ? std::string("bicubic")
                               : mode);
    if (shape0().rank() != 4)
      fail("only 4-D input is supported, not rank " +
           std::to_string(shape0().rank()));
    return Nodes{k};
  }
  // Attributes that change nothing quarry reads where they are left at
  // their defaults: saturation (float8 only), pooling's ceil_mode and
  // AveragePool's dilations, blocked quantization.
  struct Inert {
    const char *op, *attr;
  };
  static const Inert kInert[] = {{"Cast", "saturate"},
                                 {"CastLike", "saturate"},
                                 {"QuantizeLinear", "saturate"},
                                 {"LpPool", "ceil_mode"},
                                 {"AveragePool", "dilations"},
                                 {"QuantizeLinear", "block_size"},
                                 {"DequantizeLinear", "block_size"},
                                 {"QuantizeLinear", "output_dtype"}};
  bool any_inert = false;
  onnx::NodeProto k = n;
  for (const auto &[type, name] : kInert) {
    const auto *a = op == type ? find_attr(n, name) : nullptr;
    if (!a)
      continue;
    const bool inert = std::string(name) == "saturate" ||
                       (a->type() == onnx::AttributeProto::INTS
                            ? std::all_of(a->ints().begin(), a->ints().end(),
                                          [](int64_t v) { return v == 1; })
                            : a->i() == 0);
    if (!inert)
      fail(std::string(name) + " other than its default is not supported");
    drop_attr(k, name);
    any_inert = true;
  }
  if (any_inert)
    return Nodes{k};

  // Operators born after 17, written as the computations they define.
  const std::string &y = n.output(0);
  auto value = [&](const std::string &hint) {
    return opset17_name(base + "/" + hint);
  };
  if (op == "Mish") { // x tanh(softplus(x))
    const std::string &x = input(0);
    const std::string sp = value("softplus"), th = value("tanh");
    return Nodes{make_node(n, "Softplus", {x}, {sp}),
                 make_node(n, "Tanh", {sp}, {th}),
                 make_node(n, "Mul", {x, th}, {y})};
  }
  if (op == "Gelu" && opset_ >= 20) {
    const std::string &x = input(0);
    const std::string approximate = attr_string("approximate", "none");
    Nodes out;
    std::string inner;
    if (approximate == "none") { // erf(x / sqrt 2)
      inner = value("erf");
      const std::string scaled = value("scaled");
      out.push_back(make_node(n, "Mul",
                              {x, float_constant("rsqrt2", Shape{}, M_SQRT1_2)},
                              {scaled}));
      out.push_back(make_node(n, "Erf", {scaled}, {inner}));
    } else if (approximate == "tanh") {
      // tanh(sqrt(2 / pi) (x + 0.044715 x^3))
      const std::string x2 = value("x2"), x3 = value("x3"), c = value("cubic"),
                        s = value("sum"), z = value("z");
      inner = value("tanh");
      out.push_back(make_node(n, "Mul", {x, x}, {x2}));
      out.push_back(make_node(n, "Mul", {x2, x}, {x3}));
      out.push_back(make_node(
          n, "Mul", {x3, float_constant("k", Shape{}, 0.044715)}, {c}));
      out.push_back(make_node(n, "Add", {x, c}, {s}));
      out.push_back(make_node(
          n, "Mul",
          {s, float_constant("sqrt2_pi", Shape{}, M_2_SQRTPI * M_SQRT1_2)},
          {z}));
      out.push_back(make_node(n, "Tanh", {z}, {inner}));
    } else {
      fail("approximate '" + approximate + "' is not none or tanh");
    }
    // x (1 + inner) / 2
    const std::string one_plus = value("one_plus"), prod = value("product");
    out.push_back(make_node(
        n, "Add", {inner, float_constant("one", Shape{}, 1.0)}, {one_plus}));
    out.push_back(make_node(n, "Mul", {x, one_plus}, {prod}));
    out.push_back(
        make_node(n, "Mul", {prod, float_constant("half", Shape{}, 0.5)}, {y}));
    return out;
  }
  if (op == "GroupNormalization") {
    // The groups' instance normalization: [N, C, ...] as [N, G, rest],
    // scale and bias per group (18) or per channel (21).
    const std::string &x = input(0), &scale_in = input(1), &bias_in = input(2);
    const Shape sx = shape0();
    const int64_t groups = attr_int("num_groups", 0);
    if (sx.rank() < 2)
      fail("input " + sx.str() + " has no channels");
    if (groups < 1 || sx[1] % groups != 0)
      fail("num_groups " + std::to_string(groups) + " does not divide " +
           std::to_string(sx[1]) + " channels");
    // Scale and bias per group (18) or per channel (21).
    const int64_t per = opset_ >= 21 ? sx[1] : groups;
    for (int i : {1, 2})
      if (const Shape si = input_shape(i); si != Shape{per})
        fail(std::string(i == 1 ? "scale" : "bias") + " " + si.str() +
             " must hold one value per " +
             (opset_ >= 21 ? "channel" : "group") + ", " + Shape{per}.str());
    const std::string grouped = value("grouped"), normal = value("normal");
    onnx::NodeProto norm = make_node(n, "InstanceNormalization", {grouped},
                                     {opset_ >= 21 ? normal : y});
    if (const auto *eps = find_attr(n, "epsilon"))
      *norm.add_attribute() = *eps;
    Nodes out{make_node(
        n, "Reshape", {x, ints_constant("grouped_shape", {sx[0], groups, -1})},
        {grouped})};
    if (opset_ < 21) {
      norm.add_input(scale_in);
      norm.add_input(bias_in);
      norm.set_output(0, normal);
      out.push_back(norm);
      out.push_back(make_node(n, "Reshape",
                              {normal, ints_constant("shape", sx.dims)}, {y}));
      return out;
    }
    norm.add_input(float_constant("ones", Shape{groups}, 1.0));
    norm.add_input(float_constant("zeros", Shape{groups}, 0.0));
    out.push_back(norm);
    Ints per_channel(static_cast<size_t>(sx.rank() - 1), 1);
    per_channel[0] = sx[1];
    const std::string back = value("ungrouped"), scale = value("scale"),
                      bias = value("bias"), scaled = value("scaled");
    const std::string channel_shape =
        ints_constant("channel_shape", per_channel);
    out.push_back(make_node(n, "Reshape",
                            {normal, ints_constant("shape", sx.dims)}, {back}));
    out.push_back(make_node(n, "Reshape", {scale_in, channel_shape}, {scale}));
    out.push_back(make_node(n, "Reshape", {bias_in, channel_shape}, {bias}));
    out.push_back(make_node(n, "Mul", {back, scale}, {scaled}));
    out.push_back(make_node(n, "Add", {scaled, bias}, {y}));
    return out;
  }
  if (op == "DFT" && opset_ >= 20)
    fail("DFT of opset 20 (its axis an input) is not supported");
  if (op == "RMSNormalization" || op == "Attention" || op == "RotaryEmbedding")
    return opset23_form();
  return std::nullopt;
}

void raise_from_opset17(onnx::GraphProto &graph, int64_t opset) {
  if (opset <= kSchemaOpset)
    return;
  std::set<std::string> names = names_held(graph);
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (onnx::NodeProto &n : *graph.mutable_node()) {
    for (auto &a : *n.mutable_attribute()) {
      if (a.has_g())
        raise_from_opset17(*a.mutable_g(), opset);
      for (auto &g : *a.mutable_graphs())
        raise_from_opset17(g, opset);
    }
    const bool onnx_domain = default_domain(n.domain());
    if (onnx_domain && axes_became_input(n.op_type()) && find_attr(n, "axes")) {
      const auto *axes = find_attr(n, "axes");
      std::string name = n.output(0) + "_axes";
      for (int k = 2; names.count(name); ++k)
        name = n.output(0) + "_axes_" + std::to_string(k);
      names.insert(name);
      onnx::NodeProto *c = nodes.Add();
      c->set_op_type("Constant");
      c->set_name(name);
      c->add_output(name);
      add_attr(*c, "value",
               encode_ints("", Ints(axes->ints().begin(), axes->ints().end())));
      drop_attr(n, "axes");
      keep_inputs(n, 1);
      n.add_input(name);
    }
    if (onnx_domain && n.op_type() == "GridSample" && opset >= 20)
      if (const auto *mode = find_attr(n, "mode"))
        set_attr(n, "mode",
                 mode->s() == "bilinear"  ? std::string("linear")
                 : mode->s() == "bicubic" ? std::string("cubic")
                                          : mode->s());
    *nodes.Add() = std::move(n);
  }
  graph.mutable_node()->Swap(&nodes);
}

void hold_late_form(onnx::NodeProto &n) {
  n.set_domain(std::string(kLateFormDomain) + ":" + n.domain());
}

namespace {

bool late_form(const onnx::NodeProto &n) {
  return n.domain().rfind(std::string(kLateFormDomain) + ":", 0) == 0;
}

} // namespace

void declare_late_forms(onnx::ModelProto &model) {
  std::set<std::string> domains;
  for (const auto &n : model.graph().node())
    if (late_form(n))
      domains.insert(n.domain());
  for (const std::string &d : domains) {
    auto *op = model.add_opset_import();
    op->set_domain(d);
    op->set_version(1);
  }
}

void release_late_forms(onnx::GraphProto &graph) {
  for (onnx::NodeProto &n : *graph.mutable_node()) {
    for (auto &a : *n.mutable_attribute()) {
      if (a.has_g())
        release_late_forms(*a.mutable_g());
      for (auto &g : *a.mutable_graphs())
        release_late_forms(g);
    }
    if (late_form(n))
      n.set_domain(n.domain().substr(std::string(kLateFormDomain).size() + 1));
  }
}

} // namespace quarry::onnx_io
