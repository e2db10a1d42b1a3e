//===- onnx_export.cc - Writing a quarry Model as ONNX --------------------===//
//
// Every quarry operator becomes one or a few ONNX nodes (opset 14); see
// models/ONNX.md. Constants of the algebra (const_pool, ...) are evaluated
// and written as initializers. The result passes onnx::checker.
//
//===----------------------------------------------------------------------===//
#include "onnx_attrs.h"
#include "onnx_export_fusions.h"
#include "onnx_external_data.h"
#include "onnx_interface.h"
#include "onnx_kept.h"
#include "onnx_late_opsets.h"
#include "onnx_names.h"
#include "onnx_old_forms.h"
#include "onnx_tensor.h"

#include "quarry/core/evaluate.h"
#include "quarry/core/file_io.h"
#include "quarry/core/float_domain.h"
#include "quarry/core/memory_limit.h"
#include "quarry/models/onnx.h"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/version_converter/convert.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

namespace quarry {

namespace {

using Ints = std::vector<int64_t>;
using ops::BroadcastFn;
using ops::PointwiseFn;
constexpr int64_t kOpset = 14;

class Exporter {
public:
  Exporter(const Model &m, uint64_t seed)
      : g_(m.graph), values_(bind_variables(g_, m.weights, seed)) {
    if (!m.kept_onnx.empty())
      kept_ = onnx_io::parse_kept(m.kept_onnx, "the model's kept nodes");
    for (const auto &vi : kept_.graph().input())
      input_elem_[vi.name()] = vi.type().tensor_type().elem_type();
    // A weight made of a float16 constant goes out as one while its values
    // are still float16 (the optimizer's new weights are float32).
    for (const Node &n : g_.nodes()) {
      auto e = input_elem_.find(n.name);
      if (n.kind != OpKind::Weight || e == input_elem_.end())
        continue;
      const Tensor<float> &w = values_.at(n.name);
      if (!std::all_of(w.data.begin(), w.data.end(), [&](float v) {
            return onnx_io::round_to(e->second, v) == v || std::isnan(v);
          }))
        input_elem_.erase(e);
    }
    tail_ = onnx_io::untyped_tail(kept_);
    if (tail_ && static_cast<size_t>(tail_->input_size()) > g_.outputs().size())
      throw Error("export: the untyped tail reads " +
                  std::to_string(tail_->input_size()) +
                  " values but the graph has " +
                  std::to_string(g_.outputs().size()) + " outputs");
  }

  onnx::ModelProto run() {
    onnx::ModelProto model;
    // Kept nodes may use types of a later IR (optionals: 8).
    model.set_ir_version(std::max<int64_t>(7, kept_.ir_version()));
    model.set_producer_name("quarry");
    graph_ = model.mutable_graph();
    graph_->set_name("quarry");
    const auto live = g_.live_nodes();
    fusions_ = onnx_io::find_export_fusions(g_);
    const int64_t opset = prepare_kept(live, least_opset(live));
    auto *op = model.add_opset_import();
    op->set_domain("");
    op->set_version(opset);
    for (const auto &other : kept_.opset_import())
      if (!onnx_io::default_domain(other.domain()))
        *model.add_opset_import() = other;
    // Every graph input, read or not: an application feeds them all.
    for (int32_t id = 0; id < g_.num_nodes(); ++id)
      if (live[id] || g_.node(id).kind == OpKind::Input)
        emit(id);
    if (tail_)
      emit_tail();
    emit_outputs();
    restore_names();
    onnx_io::restore_interface(model, kept_, prefix_);
    try {
      onnx::checker::check_model(model);
    } catch (const std::exception &e) {
      throw Error(std::string("export: the ONNX checker rejects the model: ") +
                  e.what());
    }
    // Back to the imported model's opset where every node can be written
    // there, in that opset's forms (onnx_old_forms.h).
    if (source_opset_ > 0 && source_opset_ < opset)
      onnx_io::lower_opset(model, source_opset_,
                           onnx_io::imported_operators(kept_));
    // After the checker, which knows opset 17's forms: a later opset's
    // nodes in their own forms (onnx_late_opsets.h).
    onnx_io::raise_from_opset17(*model.mutable_graph(), opset);
    return model;
  }

private:
  /// The exported name of `v`: a variable's own name, `t` and the node id
  /// for the rest. Names the kept nodes use keep them: those variables get
  /// the prefix, which no kept name starts with.
  std::string name(ValueRef v) const {
    const Node &n = g_.node(v.node);
    if (n.is_variable())
      return variable_name(v) + (cast_variable(n) ? "_float" : "");
    return prefix_ + std::to_string(v.node) +
           (n.num_outputs > 1 ? "_" + std::to_string(v.output) : "");
  }
  std::string in(const Node &n, int k) const { return name(n.inputs[k]); }
  /// A variable's own name, unless a kept node uses it.
  std::string variable_name(ValueRef v) const {
    const Node &n = g_.node(v.node);
    auto bound = outer_binding_.find(n.name);
    if (!reserved_.count(n.name) ||
        (bound != outer_binding_.end() && bound->second == v))
      return n.name;
    return prefix_ + "_" + n.name;
  }
  /// A variable quarry holds as float32 that the model declared of another
  /// type: a graph input of bools (held as 0 and 1) or 8- and 16-bit
  /// integers, a float16 or bfloat16 graph input or weight. It goes out
  /// under its name in its own type, cast to float32 as `name`_float.
  bool cast_variable(const Node &n) const {
    auto it = input_elem_.find(n.name);
    if (!n.is_variable() || it == input_elem_.end())
      return false;
    return onnx_io::held_exactly(it->second)
               ? n.kind == OpKind::Input
               : it->second != onnx::TensorProto::FLOAT &&
                     onnx_io::held_as_float(it->second);
  }

  /// The ONNX element type of `v`: float32 but for kept nodes' outputs and
  /// integer graph inputs.
  int32_t elem(ValueRef v) const {
    const Node &n = g_.node(v.node);
    if (n.kind == OpKind::Opaque)
      return static_cast<int32_t>(
          n.attrs.list(ops::Opaque::kTypes).at(v.output));
    if (n.kind == OpKind::Input && !cast_variable(n))
      if (auto it = input_elem_.find(n.name); it != input_elem_.end())
        return it->second;
    return onnx::TensorProto::FLOAT;
  }

  static void add_value_info(onnx::ValueInfoProto *vi, const std::string &nm,
                             const TensorType &t,
                             int32_t elem = onnx::TensorProto::FLOAT) {
    vi->set_name(nm);
    auto *tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem);
    auto *shape = tt->mutable_shape();
    for (int64_t d : t.shape.dims)
      shape->add_dim()->set_dim_value(d);
  }

  onnx::NodeProto *node(const std::string &type, std::vector<std::string> in,
                        std::vector<std::string> out) {
    auto *n = graph_->add_node();
    n->set_op_type(type);
    n->set_name(out.at(0));
    for (auto &i : in)
      n->add_input(i);
    for (auto &o : out)
      n->add_output(o);
    return n;
  }
  template <class V>
  static void attr(onnx::NodeProto *n, const char *nm, const V &v) {
    onnx_io::add_attr(*n, nm, v);
  }
  /// A new int64 initializer; returns its name.
  std::string ints(const std::string &hint, const Ints &v) {
    *graph_->add_initializer() = onnx_io::encode_ints(hint, v);
    return hint;
  }
  std::string scalar(const std::string &hint, float v) {
    *graph_->add_initializer() =
        onnx_io::encode_tensor(hint, Tensor<float>(Shape{}, v));
    return hint;
  }

  /// Gives the values and weights the imported model named (onnx_kept.h:
  /// kNamesFunction) those names back, and the ONNX nodes that compute
  /// them their names, where quarry's graph still holds them.
  void restore_names() {
    const onnx::FunctionProto *record = onnx_io::names_record(kept_);
    if (!record)
      return;
    std::map<std::string, const onnx::NodeProto *> by_quarry;
    for (const auto &r : record->node())
      if (r.input_size() == 1)
        by_quarry.emplace(r.input(0), &r);
    std::map<std::string, std::string> values, nodes;
    for (int32_t id = 0; id < g_.num_nodes(); ++id) {
      const Node &n = g_.node(id);
      auto r = by_quarry.find(n.name);
      if (n.name.empty() || r == by_quarry.end() || n.kind == OpKind::Opaque ||
          n.kind == OpKind::Input)
        continue;
      const onnx::NodeProto &names = *r->second;
      if (n.kind == OpKind::Weight) {
        // Under its ONNX name only where it is written as the model had it
        // (a Conv's bias is [C] there, [C,1,1] to quarry).
        Ints dims = n.types.at(0).shape.dims;
        if (fusions_.conv_bias_weights.count(id))
          dims.resize(1);
        for (const auto &a : names.attribute())
          if (a.name() == "dims" &&
              Ints(a.ints().begin(), a.ints().end()) == dims)
            values.emplace(variable_name({id, 0}), names.output(0));
        continue;
      }
      if (names.output_size() != n.num_outputs)
        continue;
      for (int k = 0; k < n.num_outputs; ++k)
        values.emplace(name({id, k}), names.output(k));
      if (!names.name().empty())
        nodes.emplace(names.output(0), names.name());
    }
    onnx_io::restore_names(*graph_, values, nodes);
  }

  /// Where an operator with fused activation `act` writes its own
  /// result: `out` itself when there is none.
  static std::string before_activation(int64_t act, const std::string &out,
                                       const char *suffix) {
    return act ? out + suffix : out;
  }
  /// Applies a fused activation to `pre`, writing `out` (nothing when there
  /// is none: `pre` is `out`).
  void activation(int64_t act, const std::string &pre, const std::string &out) {
    static const char *const names[] = {"Identity", "Relu", "Sigmoid", "Tanh"};
    if (act)
      node(names[act], {pre}, {out});
  }

  /// Per-side pads [t,l,b,r] of the algebra's same/valid windows.
  Ints algebra_pads(const Node &n, size_t stride_at, size_t pad_at,
                    const Shape &x, const Ints &k) const {
    if (static_cast<Padding>(n.attrs.i(pad_at)) == Padding::Valid)
      return {0, 0, 0, 0};
    const Ints &s = n.attrs.list(stride_at);
    Ints p(4);
    for (int i = 0; i < 2; ++i) {
      const int64_t in = x[2 + i], out = (in + s[i] - 1) / s[i];
      p[i] = (k[i] - 1) / 2;
      p[i + 2] = std::max<int64_t>(0, (out - 1) * s[i] + k[i] - in - p[i]);
    }
    return p;
  }

  void emit(int32_t id) {
    if (fusions_.absorbed.count(id))
      return; // written as part of another node's operator
    if (auto gemm = fusions_.gemm.find(id); gemm != fusions_.gemm.end()) {
      const onnx_io::GemmGroup &f = gemm->second;
      auto *gm =
          node("Gemm", {name(f.a), name(f.b), name(f.c)}, {name({id, 0})});
      if (f.trans_a)
        attr(gm, "transA", int64_t{1});
      if (f.trans_b)
        attr(gm, "transB", int64_t{1});
      return;
    }
    const Node &n = g_.node(id);
    const std::string out = name({id, 0});
    const Shape &x0 = n.inputs.empty() ? Shape{} : g_.type(n.inputs[0])->shape;
    switch (n.kind) {
    case OpKind::Input:
      if (cast_variable(n)) {
        add_value_info(graph_->add_input(), variable_name({id, 0}),
                       n.types.at(0), input_elem_.at(n.name));
        attr(node("Cast", {variable_name({id, 0})}, {out}), "to",
             int64_t{onnx::TensorProto::FLOAT});
        return;
      }
      add_value_info(graph_->add_input(), name({id, 0}), n.types.at(0),
                     elem({id, 0}));
      return;
    case OpKind::Weight: {
      const Tensor<float> &value = values_.at(n.name);
      Tensor<float> bias; // a Conv's bias is [C], not [C,1,1]
      const bool conv_bias = fusions_.conv_bias_weights.count(id) > 0;
      if (conv_bias)
        bias = Tensor<float>(Shape{value.shape[0]}, value.data);
      const Tensor<float> &written = conv_bias ? bias : value;
      if (cast_variable(n)) {
        *graph_->add_initializer() = onnx_io::encode_tensor(
            variable_name({id, 0}), written, input_elem_.at(n.name));
        attr(node("Cast", {variable_name({id, 0})}, {out}), "to",
             int64_t{onnx::TensorProto::FLOAT});
        return;
      }
      *graph_->add_initializer() =
          onnx_io::encode_tensor(name({id, 0}), written);
      return;
    }
    case OpKind::Opaque:
      return emit_kept(id);
    case OpKind::MatMul: {
      const int64_t act = n.attrs.i(ops::MatMul::kAct);
      const std::string mm = before_activation(act, out, "_mm");
      node("MatMul", {in(n, 0), in(n, 1)}, {mm});
      return activation(act, mm, out);
    }
    case OpKind::Conv2D: {
      using Conv = ops::Conv2D;
      const Shape &w = g_.type(n.inputs[1])->shape;
      const Ints d = Conv::dilation(n.attrs);
      // The pads follow the window's extent, the taps d apart.
      const Ints extent{ops::dilated_extent(w[2], d[0]),
                        ops::dilated_extent(w[3], d[1])};
      const int64_t act = n.attrs.i(ops::Conv2D::kAct);
      std::vector<std::string> operands{in(n, 0), in(n, 1)};
      std::string result = before_activation(act, out, "_conv");
      if (auto add = fusions_.conv_bias.find(id);
          add != fusions_.conv_bias.end()) {
        const Node &a = g_.node(add->second);
        operands.push_back(in(a, 1));
        result = name({add->second, 0});
      }
      auto *c = node("Conv", operands, {result});
      attr(c, "kernel_shape", Ints{w[2], w[3]});
      attr(c, "strides", n.attrs.list(Conv::kStride));
      attr(c, "pads", algebra_pads(n, Conv::kStride, Conv::kPad, x0, extent));
      if (Conv::dilated(n.attrs))
        attr(c, "dilations", d);
      attr(c, "group", x0[1] / w[1]);
      return activation(act, result, out);
    }
    case OpKind::Pool2DAvg:
    case OpKind::Pool2DMax: {
      const bool avg = n.kind == OpKind::Pool2DAvg;
      using P = ops::Pool2D<ops::PoolFn::Avg>;
      const Ints &k = n.attrs.list(P::kKernel);
      auto *p = node(avg ? "AveragePool" : "MaxPool", {in(n, 0)}, {out});
      attr(p, "kernel_shape", k);
      attr(p, "strides", n.attrs.list(P::kStride));
      attr(p, "pads", algebra_pads(n, P::kStride, P::kPad, x0, k));
      if (avg)
        attr(p, "count_include_pad", int64_t{1});
      return;
    }
    case OpKind::Relu:
      node("Relu", {in(n, 0)}, {out});
      return;
    case OpKind::Sigmoid:
      node("Sigmoid", {in(n, 0)}, {out});
      return;
    case OpKind::Tanh:
      node("Tanh", {in(n, 0)}, {out});
      return;
    case OpKind::EwAdd:
      node("Add", {in(n, 0), in(n, 1)}, {out});
      return;
    case OpKind::EwMul:
    case OpKind::ScalarMul:
      node("Mul", {in(n, 0), in(n, 1)}, {out});
      return;
    case OpKind::Concat: {
      std::vector<std::string> ins;
      for (size_t k = 0; k < n.inputs.size(); ++k)
        ins.push_back(in(n, static_cast<int>(k)));
      attr(node("Concat", ins, {out}), "axis", n.attrs.i(ops::Concat::kAxis));
      return;
    }
    case OpKind::Split: {
      const int64_t axis = n.attrs.i(ops::Split::kAxis);
      Ints sizes;
      std::vector<std::string> outs;
      for (int k = 0; k < n.num_outputs; ++k) {
        sizes.push_back(n.types[k].shape[static_cast<int>(axis)]);
        outs.push_back(name({id, k}));
      }
      attr(node("Split", {in(n, 0), ints(out + "_sizes", sizes)}, outs), "axis",
           axis);
      return;
    }
    case OpKind::Transpose:
      attr(node("Transpose", {in(n, 0)}, {out}), "perm",
           n.attrs.list(ops::Transpose::kPerm));
      return;
    case OpKind::Enlarge: {
      const Ints &k = n.attrs.list(ops::Enlarge::kKernel);
      const int64_t dy = (k[0] - x0[2]) / 2, dx = (k[1] - x0[3]) / 2;
      node("Pad",
           {in(n, 0),
            ints(out + "_pads",
                 {0, 0, dy, dx, 0, 0, k[0] - x0[2] - dy, k[1] - x0[3] - dx})},
           {out});
      return;
    }
    case OpKind::ConstPool:
    case OpKind::ConstIConv:
    case OpKind::ConstImm:
    case OpKind::ConstOne: {
      // Evaluate the constant once and store its value.
      Graph one;
      const auto v = one.add(n.kind, n.attrs, {});
      one.mark_output(v[0]);
      *graph_->add_initializer() =
          onnx_io::encode_tensor(out, evaluate(FloatDomain{}, one, {}).at(0));
      return;
    }
    case OpKind::BatchNorm:
      attr(node("BatchNormalization",
                {in(n, 0), in(n, 1), in(n, 2), in(n, 3), in(n, 4)}, {out}),
           "epsilon", static_cast<float>(n.attrs.real(ops::BatchNorm::kEps)));
      return;
    case OpKind::Reshape:
      node("Reshape",
           {in(n, 0), ints(out + "_shape", n.types.at(0).shape.dims)}, {out});
      return;
    default:
      return emit_float_only(n, out);
    }
  }

  /// A function ONNX has no operator for (GELU has one from opset 20,
  /// past quarry's own nodes' 17) as the operators that compute it: SiLU
  /// as x sigmoid(x), GELU as x (1 + erf(x / sqrt 2)) / 2.
  void emit_composite(PointwiseFn fn, const std::string &x,
                      const std::string &out) {
    if (fn == PointwiseFn::Silu) {
      node("Sigmoid", {x}, {out + "_sigmoid"});
      node("Mul", {x, out + "_sigmoid"}, {out});
      return;
    }
    node("Div", {x, scalar(out + "_sqrt2", static_cast<float>(M_SQRT2))},
         {out + "_scaled"});
    node("Erf", {out + "_scaled"}, {out + "_erf"});
    node("Add", {out + "_erf", scalar(out + "_one", 1.0f)}, {out + "_sum"});
    node("Mul", {x, out + "_sum"}, {out + "_product"});
    node("Mul", {out + "_product", scalar(out + "_half", 0.5f)}, {out});
  }

  void emit_float_only(const Node &n, const std::string &out) {
    switch (n.kind) {
    case OpKind::Pointwise: {
      using P = ops::Pointwise;
      const auto fn = static_cast<PointwiseFn>(n.attrs.i(P::kFn));
      const float alpha = static_cast<float>(n.attrs.real(P::kAlpha));
      const float beta = static_cast<float>(n.attrs.real(P::kBeta));
      std::vector<std::string> ins{in(n, 0)};
      if (fn == PointwiseFn::Silu || fn == PointwiseFn::Gelu)
        return emit_composite(fn, ins[0], out);
      if (fn == PointwiseFn::Clip) {
        ins.push_back(scalar(out + "_min", alpha));
        ins.push_back(scalar(out + "_max", beta));
      }
      auto *p =
          node(onnx_io::onnx_name(ops::kPointwiseNames[static_cast<int>(fn)]),
               ins, {out});
      using F = PointwiseFn;
      if (fn == F::LeakyRelu || fn == F::HardSigmoid || fn == F::Elu ||
          fn == F::Selu || fn == F::Celu || fn == F::ThresholdedRelu)
        attr(p, "alpha", alpha);
      if (fn == F::HardSigmoid)
        attr(p, "beta", beta);
      if (fn == F::Selu)
        attr(p, "gamma", beta);
      if (fn == F::Shrink) {
        attr(p, "lambd", alpha);
        attr(p, "bias", beta);
      }
      return;
    }
    case OpKind::Broadcast: {
      // A comparison gives ONNX's bool, cast to the float quarry holds (Ne
      // is Not of Equal).
      static const char *const types[] = {
          "Add",         "Sub",     "Mul",           "Div",   "Pow",
          "Max",         "Min",     "Equal",         "Equal", "Less",
          "LessOrEqual", "Greater", "GreaterOrEqual"};
      const auto fn = static_cast<BroadcastFn>(n.attrs.i(ops::Broadcast::kFn));
      if (!ops::is_comparison(fn)) {
        node(types[static_cast<int>(fn)], {in(n, 0), in(n, 1)}, {out});
        return;
      }
      std::string truth = out + "_bool";
      node(types[static_cast<int>(fn)], {in(n, 0), in(n, 1)}, {truth});
      if (fn == BroadcastFn::Ne) {
        node("Not", {truth}, {out + "_not"});
        truth = out + "_not";
      }
      attr(node("Cast", {truth}, {out}), "to",
           int64_t{onnx::TensorProto::FLOAT});
      return;
    }
    case OpKind::Where: {
      attr(node("Cast", {in(n, 0)}, {out + "_cond"}), "to",
           int64_t{onnx::TensorProto::BOOL});
      node("Where", {out + "_cond", in(n, 1), in(n, 2)}, {out});
      return;
    }
    case OpKind::Softmax:
      attr(node("Softmax", {in(n, 0)}, {out}), "axis",
           n.attrs.i(ops::Softmax::kAxis));
      return;
    case OpKind::LayerNorm: {
      std::vector<std::string> operands;
      for (size_t k = 0; k < n.inputs.size(); ++k)
        operands.push_back(in(n, static_cast<int>(k)));
      auto *l = node("LayerNormalization", operands, {out});
      attr(l, "axis", n.attrs.i(ops::LayerNorm::kAxis));
      attr(l, "epsilon",
           static_cast<float>(n.attrs.real(ops::LayerNorm::kEps)));
      return;
    }
    case OpKind::GridSample: {
      using G = ops::GridSample;
      auto *s = node("GridSample", {in(n, 0), in(n, 1)}, {out});
      attr(s, "mode",
           std::string(ops::kGridSampleModeNames[n.attrs.i(G::kMode)]));
      attr(s, "padding_mode",
           std::string(ops::kGridSamplePadNames[n.attrs.i(G::kPad)]));
      attr(s, "align_corners", n.attrs.i(G::kAlign));
      return;
    }
    case OpKind::Hardmax:
      attr(node("Hardmax", {in(n, 0)}, {out}), "axis",
           n.attrs.i(ops::Hardmax::kAxis));
      return;
    case OpKind::GatherElements: {
      // quarry holds the indices as float32; ONNX takes them as integers.
      attr(node("Cast", {in(n, 1)}, {out + "_indices"}), "to",
           int64_t{onnx::TensorProto::INT64});
      attr(node("GatherElements", {in(n, 0), out + "_indices"}, {out}), "axis",
           n.attrs.i(ops::GatherElements::kAxis));
      return;
    }
    case OpKind::ReduceMean: {
      auto *r = node("ReduceMean", {in(n, 0)}, {out});
      attr(r, "axes", n.attrs.list(ops::ReduceMean::kAxes));
      attr(r, "keepdims", n.attrs.i(ops::ReduceMean::kKeepDims));
      return;
    }
    case OpKind::Reduce: {
      using R = ops::Reduce;
      const auto fn = static_cast<ops::ReduceFn>(n.attrs.i(R::kFn));
      onnx::NodeProto *r;
      if (fn == ops::ReduceFn::Sum) // opset 13 on: axes as an input
        r = node("ReduceSum",
                 {in(n, 0), ints(out + "_axes", n.attrs.list(R::kAxes))},
                 {out});
      else
        r = node("Reduce" + onnx_io::onnx_name(
                                ops::kReduceNames[static_cast<int>(fn)]),
                 {in(n, 0)}, {out});
      if (fn != ops::ReduceFn::Sum)
        attr(r, "axes", n.attrs.list(R::kAxes));
      attr(r, "keepdims", n.attrs.i(R::kKeepDims));
      return;
    }
    case OpKind::Slice: {
      using S = ops::Slice;
      node("Slice",
           {in(n, 0), ints(out + "_starts", n.attrs.list(S::kStarts)),
            ints(out + "_ends", n.attrs.list(S::kEnds)),
            ints(out + "_axes", n.attrs.list(S::kAxes)),
            ints(out + "_steps", n.attrs.list(S::kSteps))},
           {out});
      return;
    }
    case OpKind::Pad: {
      auto *p =
          node("Pad",
               {in(n, 0), ints(out + "_pads", n.attrs.list(ops::Pad::kPads)),
                scalar(out + "_value",
                       static_cast<float>(n.attrs.real(ops::Pad::kValue)))},
               {out});
      attr(p, "mode",
           std::string(ops::kPadModeNames[n.attrs.i(ops::Pad::kMode)]));
      return;
    }
    case OpKind::Pool2DExplicit: {
      using P = ops::Pool2DExplicit;
      const bool is_max = n.attrs.i(P::kFn) == 1;
      auto *p = node(is_max ? "MaxPool" : "AveragePool", {in(n, 0)}, {out});
      attr(p, "kernel_shape", n.attrs.list(P::kKernel));
      attr(p, "strides", n.attrs.list(P::kStride));
      attr(p, "pads", n.attrs.list(P::kPads));
      if (!is_max)
        attr(p, "count_include_pad", n.attrs.i(P::kCountPad));
      if (n.attrs.list(P::kDilation) != std::vector<int64_t>{1, 1})
        attr(p, "dilations", n.attrs.list(P::kDilation));
      if (n.attrs.i(P::kCeil))
        attr(p, "ceil_mode", n.attrs.i(P::kCeil));
      return;
    }
    case OpKind::ConvTranspose: {
      using C = ops::ConvTranspose;
      const Shape &w = g_.type(n.inputs[1])->shape;
      auto *c = node("ConvTranspose", {in(n, 0), in(n, 1)}, {out});
      attr(c, "kernel_shape", Ints{w[2], w[3]});
      attr(c, "strides", n.attrs.list(C::kStride));
      attr(c, "pads", n.attrs.list(C::kPads));
      attr(c, "output_padding", n.attrs.list(C::kOutPad));
      attr(c, "group", n.attrs.i(C::kGroups));
      return;
    }
    case OpKind::Resize: {
      using R = ops::Resize;
      auto *r = node(
          "Resize",
          {in(n, 0), "", "", ints(out + "_sizes", n.attrs.list(R::kShape))},
          {out});
      attr(r, "mode", std::string(ops::kResizeModeNames[n.attrs.i(R::kMode)]));
      attr(r, "coordinate_transformation_mode",
           std::string(ops::kResizeCoordNames[n.attrs.i(R::kCoord)]));
      attr(r, "nearest_mode",
           std::string(ops::kResizeNearestNames[n.attrs.i(R::kNearest)]));
      attr(r, "cubic_coeff_a", static_cast<float>(n.attrs.real(R::kCubicA)));
      attr(r, "exclude_outside", n.attrs.i(R::kExcludeOutside));
      return;
    }
    default:
      throw Error("export: no ONNX form for operator " +
                  std::string(op_name(n.kind)));
    }
  }

  /// The opset quarry's own live nodes need: 14, 16 for GridSample, 17
  /// for LayerNormalization.
  int64_t least_opset(const std::vector<bool> &live) const {
    int64_t least = kOpset;
    for (int32_t id = 0; id < g_.num_nodes(); ++id)
      if (live[id] && g_.node(id).kind == OpKind::GridSample)
        least = std::max<int64_t>(least, 16);
      else if (live[id] && g_.node(id).kind == OpKind::LayerNorm)
        least = 17;
    return least;
  }

  /// Settles names and the opset for the kept nodes of live opaque
  /// operators, writes the constants they read, and returns the opset of
  /// the export: `least`, or the imported model's when that is later
  /// (quarry's own nodes mean the same up to 17).
  int64_t prepare_kept(const std::vector<bool> &live, int64_t least) {
    int64_t source = least;
    for (const auto &op : kept_.opset_import())
      if (onnx_io::default_domain(op.domain()))
        source = op.version();
    const int64_t opset = std::max(source, least);
    source_opset_ = source;
    export_opset_ = opset;
    for (const auto &t : kept_.graph().initializer())
      reserved_.insert(t.name());
    bool any = false;
    for (int32_t id = 0; id < g_.num_nodes(); ++id) {
      const Node &n = g_.node(id);
      if (!live[id] || n.kind != OpKind::Opaque)
        continue;
      any = true;
      const onnx::NodeProto &k = kept_node(n);
      if (const std::string c = onnx_io::changed_operator(k, source, opset);
          !c.empty())
        converted_.emplace(id, convert_kept(id, c, source, opset));
      onnx_io::names_defined_inside(k, reserved_);
      const std::vector<std::string> reads = reads_of(k);
      for (const std::string &outer : onnx_io::outer_references(k)) {
        reserved_.insert(outer);
        for (size_t i = 0; i < reads.size(); ++i)
          if (reads[i] == outer)
            outer_binding_.emplace(outer, n.inputs.at(i));
      }
    }
    if (tail_) {
      any = true;
      for (const auto &k : tail_->node()) {
        if (tail_changed_.empty())
          tail_changed_ = onnx_io::changed_operator(k, source, opset);
        onnx_io::names_defined_inside(k, reserved_);
        for (const auto &name : k.output())
          reserved_.insert(name);
        for (const auto &outer : onnx_io::outer_references(k))
          reserved_.insert(outer);
      }
      // A graph input the tail reads keeps its name when it can.
      const size_t first = g_.outputs().size() - tail_->input_size();
      for (int k = 0; k < tail_->input_size(); ++k) {
        reserved_.insert(tail_->input(k));
        outer_binding_.emplace(tail_->input(k), g_.outputs()[first + k]);
      }
      for (const auto &vi : kept_.graph().value_info())
        reserved_.insert(vi.name());
    }
    // A prefix for quarry's names that starts no kept name, and that no
    // variable's name is followed by a number (an initializer named t36
    // of a model quarry wrote).
    auto clashes = [&] {
      for (const auto &r : reserved_)
        if (r.compare(0, prefix_.size(), prefix_) == 0)
          return true;
      for (const Node &n : g_.nodes())
        if (n.is_variable() && n.name.size() > prefix_.size() &&
            n.name.compare(0, prefix_.size(), prefix_) == 0 &&
            n.name.find_first_not_of("0123456789_", prefix_.size()) ==
                std::string::npos)
          return true;
      return false;
    };
    while (clashes())
      prefix_ += "q";
    if (any)
      for (const auto &t : kept_.graph().initializer())
        *graph_->add_initializer() = t;
    // Without kept nodes the imported model's opset still stands where it
    // is later than quarry's nodes need: they mean the same up to 17.
    return opset;
  }

  const onnx::NodeProto &kept_node(const Node &n) const {
    const int64_t id = n.attrs.i(ops::Opaque::kId);
    if (id < 0 || id >= kept_.graph().node_size())
      throw Error("export: opaque operator #" + std::to_string(id) +
                  " has no kept node (the model's kept nodes are missing)");
    return kept_.graph().node(static_cast<int>(id));
  }

  static std::vector<std::string> reads_of(const onnx::NodeProto &k) {
    for (const auto &a : k.attribute())
      if (a.name() == onnx_io::kReadsAttr)
        return {a.strings().begin(), a.strings().end()};
    return {};
  }

  /// `probe` (kept nodes with their operands as inputs, the constants they
  /// read as initializers, at the imported model's opsets) converted to
  /// `opset` by ONNX's version converter: its graph. `what` names the
  /// nodes in an error.
  onnx::GraphProto convert(onnx::ModelProto probe, const std::string &what,
                           const std::string &changed, int64_t from,
                           int64_t opset) const {
    probe.set_ir_version(std::max<int64_t>(kept_.ir_version(), 4));
    *probe.mutable_opset_import() = kept_.opset_import();
    probe.mutable_graph()->set_name("kept");
    auto refuse = [&](const std::string &why) {
      return Error("export: " + what + " uses " + changed + " of opset " +
                   std::to_string(from) + ", which changed by opset " +
                   std::to_string(opset) +
                   ", and ONNX's version converter cannot convert it: " +
                   why.substr(0, why.find('\n')));
    };
    onnx::GraphProto converted;
    try {
      converted = onnx::version_conversion::ConvertVersion(
                      probe, static_cast<int>(opset))
                      .graph();
    } catch (const std::exception &e) {
      throw refuse(e.what());
    }
    // Some adapters rewrite the graph's interface instead (Scan 8 to 9
    // drops the batch axis of the inputs): the node alone is not converted.
    auto same = [](const auto &a, const auto &b) {
      if (a.size() != b.size())
        return false;
      for (int i = 0; i < a.size(); ++i)
        if (a.Get(i).SerializeAsString() != b.Get(i).SerializeAsString())
          return false;
      return true;
    };
    if (!same(converted.input(), probe.graph().input()) ||
        !same(converted.output(), probe.graph().output()))
      throw refuse("it changes the types of what the nodes read or compute");
    return converted;
  }

  /// Adds the kept constants node `k` reads (by name, its subgraphs'
  /// outer references included) to `g`.
  void add_kept_constants(const onnx::NodeProto &k, onnx::GraphProto &g) const {
    const std::vector<std::string> names = onnx_io::names_read(k);
    const std::set<std::string> reads(names.begin(), names.end());
    std::set<std::string> have;
    for (const auto &t : g.initializer())
      have.insert(t.name());
    for (const auto &t : kept_.graph().initializer())
      if (reads.count(t.name()) && have.insert(t.name()).second)
        *g.add_initializer() = t;
  }

  /// The kept node of opaque operator `id` converted to `opset`: a model of
  /// it alone, its operands typed as quarry's graph types them.
  onnx::GraphProto convert_kept(int32_t id, const std::string &changed,
                                int64_t from, int64_t opset) const {
    const Node &n = g_.node(id);
    const onnx::NodeProto &k = kept_node(n);
    onnx::ModelProto probe;
    onnx::GraphProto *g = probe.mutable_graph();
    const std::vector<std::string> reads = reads_of(k);
    for (size_t i = 0; i < reads.size() && i < n.inputs.size(); ++i)
      add_value_info(g->add_input(), reads[i], *g_.type(n.inputs[i]),
                     elem(n.inputs[i]));
    add_kept_constants(k, *g);
    onnx::NodeProto *node = g->add_node();
    *node = k;
    drop_quarry_attrs(*node);
    int out = 0;
    for (const auto &o : k.output())
      if (!o.empty()) {
        const ValueRef v{id, out++};
        add_value_info(g->add_output(), o, *g_.type(v), elem(v));
      }
    const std::string what = "kept node '" +
                             (k.name().empty() ? k.output(0) : k.name()) +
                             "' (" + k.op_type() + ")";
    return convert(std::move(probe), what, changed, from, opset);
  }

  /// Writes the nodes of `converted` with their names mapped by `rename`;
  /// the names the converter made are given quarry's prefix and `tag`, and
  /// its initializers that are not kept constants are written too.
  void emit_converted(const onnx::GraphProto &converted,
                      std::map<std::string, std::string> rename,
                      const std::string &tag) {
    std::set<std::string> kept_constants;
    for (const auto &t : kept_.graph().initializer())
      kept_constants.insert(t.name());
    auto mapped = [&](const std::string &name) -> std::string {
      if (auto it = rename.find(name); it != rename.end())
        return it->second;
      if (name.empty() || kept_constants.count(name) || reserved_.count(name))
        return name;
      return rename.emplace(name, prefix_ + tag + "_" + name).first->second;
    };
    for (const auto &t : converted.initializer())
      if (!kept_constants.count(t.name())) {
        onnx::TensorProto c = t;
        c.set_name(mapped(t.name()));
        *graph_->add_initializer() = std::move(c);
      }
    for (const auto &in : converted.node()) {
      onnx::NodeProto k = in;
      for (auto &i : *k.mutable_input())
        i = mapped(i);
      for (auto &o : *k.mutable_output())
        o = mapped(o);
      *graph_->add_node() = std::move(k);
    }
  }

  /// Drops the attributes quarry adds to a kept node (onnx_kept.h).
  static void drop_quarry_attrs(onnx::NodeProto &k) {
    auto *attrs = k.mutable_attribute();
    for (int i = attrs->size() - 1; i >= 0; --i)
      if (attrs->Get(i).name() == onnx_io::kReadsAttr ||
          attrs->Get(i).name() == onnx_io::kKeptBecauseAttr)
        attrs->DeleteSubrange(i, 1);
  }

  /// The kept node of opaque operator `id`, reading the exported names of
  /// its operands; what its subgraphs read from here is given its original
  /// name by an Identity first.
  void emit_kept(int32_t id) {
    const Node &n = g_.node(id);
    onnx::NodeProto k = kept_node(n);
    const std::vector<std::string> reads = reads_of(k);
    if (reads.size() != n.inputs.size())
      throw Error("export: opaque operator #" +
                  std::to_string(n.attrs.i(ops::Opaque::kId)) + " reads " +
                  std::to_string(n.inputs.size()) +
                  " values but its kept node names " +
                  std::to_string(reads.size()));
    auto exported = [&](const std::string &original) -> std::string {
      for (size_t i = 0; i < reads.size(); ++i)
        if (reads[i] == original)
          return in(n, static_cast<int>(i));
      return original; // a kept constant
    };
    for (const std::string &outer : onnx_io::outer_references(k)) {
      const std::string from = exported(outer);
      if (from != outer && defined_outer_.insert(outer).second)
        node("Identity", {from}, {outer});
    }
    drop_quarry_attrs(k);
    if (auto c = converted_.find(id); c != converted_.end()) {
      std::map<std::string, std::string> rename;
      for (size_t i = 0; i < reads.size(); ++i)
        rename[reads[i]] = in(n, static_cast<int>(i));
      int out = 0;
      for (const auto &o : k.output())
        if (!o.empty())
          rename[o] = name({id, out++});
      return emit_converted(c->second, std::move(rename),
                            std::to_string(id) + "k");
    }
    for (auto &input : *k.mutable_input())
      if (!input.empty())
        input = exported(input);
    int out = 0;
    for (auto &output : *k.mutable_output())
      if (!output.empty())
        output = name({id, out++});
    *graph_->add_node() = std::move(k);
  }

  /// The untyped tail (onnx_kept.h) after quarry's nodes: what it reads
  /// from the graph (the graph's last outputs) under their original names,
  /// its nodes as they are, the graph inputs only it reads, and the model's
  /// outputs in their order, from the tail or from the graph's first
  /// outputs.
  void emit_tail() {
    const size_t first = g_.outputs().size() - tail_->input_size();
    for (int k = 0; k < tail_->input_size(); ++k) {
      const std::string from = name(g_.outputs()[first + k]);
      if (from != tail_->input(k))
        node("Identity", {from}, {tail_->input(k)});
    }
    if (tail_changed_.empty())
      for (const auto &n : tail_->node())
        *graph_->add_node() = n;
    else
      emit_converted(convert_tail(first), {}, "tail");
    for (const auto &vi : kept_.graph().value_info())
      *graph_->add_input() = vi;
  }

  /// The graph's outputs, or, when the kept model names the imported
  /// model's outputs, those in their order: from the untyped tail as
  /// declared, else from the graph's first outputs, each cast to its
  /// declared element type where quarry holds it as float32 (a bool as 0
  /// and 1).
  void emit_outputs() {
    if (kept_.graph().output_size() == 0) {
      for (ValueRef v : g_.outputs())
        add_value_info(graph_->add_output(), name(v), *g_.type(v), elem(v));
      return;
    }
    const size_t first =
        g_.outputs().size() - (tail_ ? tail_->input_size() : 0);
    std::set<std::string> from_tail;
    if (tail_)
      from_tail.insert(tail_->output().begin(), tail_->output().end());
    size_t next = 0;
    for (const auto &vi : kept_.graph().output()) {
      if (from_tail.count(vi.name())) {
        *graph_->add_output() = vi;
        continue;
      }
      if (next == first)
        throw Error("export: the model has more outputs outside its untyped "
                    "tail than the graph computes (" +
                    std::to_string(first) + ")");
      const ValueRef v = g_.outputs()[next++];
      const int32_t declared = vi.type().tensor_type().elem_type();
      std::string out = name(v);
      if (elem(v) == onnx::TensorProto::FLOAT && castable(declared)) {
        const std::string cast = out + "_out" + std::to_string(next - 1);
        attr(node("Cast", {out}, {cast}), "to", int64_t{declared});
        out = cast;
      }
      add_value_info(graph_->add_output(), out, *g_.type(v),
                     out == name(v) ? elem(v) : declared);
    }
    if (next != first)
      throw Error("export: the graph computes " + std::to_string(first) +
                  " of the model's outputs, but it names " +
                  std::to_string(next));
  }

  /// Whether a float32 output is cast to `declared`: a numeric type other
  /// than float32 (a model may declare any number, and Cast takes few).
  static bool castable(int32_t declared) {
    using TP = onnx::TensorProto;
    switch (declared) {
    case TP::BOOL:
    case TP::INT8:
    case TP::INT16:
    case TP::INT32:
    case TP::INT64:
    case TP::UINT8:
    case TP::UINT16:
    case TP::UINT32:
    case TP::UINT64:
    case TP::FLOAT16:
    case TP::BFLOAT16:
    case TP::DOUBLE:
      return true;
    default:
      return false;
    }
  }

  /// The untyped tail converted to the export's opset: a model of it
  /// alone, what it reads from the graph typed as the graph types it.
  onnx::GraphProto convert_tail(size_t first) const {
    onnx::ModelProto probe;
    onnx::GraphProto *g = probe.mutable_graph();
    for (int k = 0; k < tail_->input_size(); ++k) {
      const ValueRef v = g_.outputs()[first + static_cast<size_t>(k)];
      add_value_info(g->add_input(), tail_->input(k), *g_.type(v), elem(v));
    }
    for (const auto &vi : kept_.graph().value_info())
      *g->add_input() = vi;
    for (const auto &n : tail_->node()) {
      add_kept_constants(n, *g);
      *g->add_node() = n;
    }
    const std::set<std::string> from_tail(tail_->output().begin(),
                                          tail_->output().end());
    for (const auto &vi : kept_.graph().output())
      if (from_tail.count(vi.name()))
        *g->add_output() = vi;
    return convert(std::move(probe), "the untyped tail", tail_changed_,
                   source_opset_, export_opset_);
  }

  const Graph &g_;
  const onnx::FunctionProto *tail_ = nullptr;
  /// The operator of the tail that changed by the export's opset ("" when
  /// none did), and the opsets it was written for and is written at.
  std::string tail_changed_;
  int64_t source_opset_ = 0, export_opset_ = 0;
  /// Kept nodes converted to the export's opset, by opaque id.
  std::map<int32_t, onnx::GraphProto> converted_;
  Bindings<float> values_;
  onnx::GraphProto *graph_ = nullptr;
  onnx::ModelProto kept_;
  std::map<std::string, int32_t> input_elem_;
  /// Names the kept nodes use (their constants, what their subgraphs
  /// define or read from here): quarry's names avoid them.
  std::set<std::string> reserved_;
  /// What export writes as one ONNX operator (onnx_export_fusions.h).
  onnx_io::ExportFusions fusions_;
  /// What each name read from here by a subgraph is bound to.
  std::map<std::string, ValueRef> outer_binding_;
  std::set<std::string> defined_outer_;
  std::string prefix_ = "t";
};

} // namespace

std::string export_onnx_bytes(const Model &m, uint64_t seed) {
  const onnx::ModelProto model = Exporter(m, seed).run();
  if (model.ByteSizeLong() >= onnx_io::kMaxMessageBytes)
    throw Error("export: the model comes to " +
                byte_size_text(model.ByteSizeLong()) +
                ", more than one ONNX file holds (2 GiB); written to a "
                "file, its weights go to ONNX external data");
  return model.SerializeAsString();
}

void export_onnx(const Model &m, const std::string &path, uint64_t seed,
                 const OnnxExportOptions &opts) {
  onnx::ModelProto model = Exporter(m, seed).run();
  if (!opts.external_data && model.ByteSizeLong() < onnx_io::kMaxMessageBytes) {
    write_file_atomic(path, model.SerializeAsString());
    return;
  }
  // The data file is complete before the model that points into it
  // appears, and goes again when the model cannot be written.
  const std::string data_path = path + ".data";
  AtomicFile data(data_path);
  const uint64_t moved = onnx_io::move_to_external(
      model, base_name(data_path), onnx_io::kExternalAtLeast, data);
  if (model.ByteSizeLong() >= onnx_io::kMaxMessageBytes)
    throw Error("export: " + path + " comes to " +
                byte_size_text(model.ByteSizeLong()) +
                " even with its raw tensors in external data, more than one "
                "ONNX file holds (2 GiB)");
  AtomicFile out(path);
  out.append(model.SerializeAsString());
  if (moved > 0) // else no data file: every tensor is small
    data.commit();
  out.commit();
}

} // namespace quarry
