//===- onnx_export_nodes.cc - quarry's operators as ONNX nodes ------------===//
//
// Every quarry operator becomes one or a few ONNX nodes of the export's
// opset (models/ONNX.md); the float-only operators become the ONNX
// operators they came from, or their compositions.
//
//===----------------------------------------------------------------------===//
#include "onnx_exporter.h"

namespace quarry::onnx_io {

namespace {

/// The target of a reshape from `in` to `out` written so that it holds
/// beyond these extents where it can: 0 (the input's extent) on each axis
/// that keeps its extent, -1 for the largest of the others. At these
/// extents it is `out`; a model imported at a fixed batch or image size
/// then still reshapes at another (staged/open_dims.h checks whether the
/// model computes the same there).
Ints reshape_target(const Shape &in, const Shape &out) {
  Ints t = out.dims;
  for (int i = 0; i < std::min(in.rank(), out.rank()); ++i)
    if (in[i] == out[i])
      t[i] = 0;
  int largest = -1;
  for (int i = 0; i < out.rank(); ++i)
    if (t[i] != 0 && (largest < 0 || out[i] > out[largest]))
      largest = i;
  if (largest >= 0)
    t[largest] = -1;
  return t;
}

} // namespace

void Exporter::emit(int32_t id) {
  if (auto r = restored_.find(id); r != restored_.end())
    return emit_restored(r->second);
  if (fusions_.absorbed.count(id))
    return; // written as part of another node's operator
  if (auto gemm = fusions_.gemm.find(id); gemm != fusions_.gemm.end()) {
    const onnx_io::GemmGroup &f = gemm->second;
    auto *gm = node("Gemm", {name(f.a), name(f.b), name(f.c)}, {name({id, 0})});
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
    if (cast_variable(n) && raw_only_.count(id)) {
      add_value_info(graph_->add_input(), variable_name({id, 0}), n.types.at(0),
                     input_elem_.at(n.name));
      return;
    }
    if (cast_variable(n)) {
      add_value_info(graph_->add_input(), variable_name({id, 0}), n.types.at(0),
                     input_elem_.at(n.name));
      attr(node("Cast", {variable_name({id, 0})}, {out}), "to",
           int64_t{onnx::TensorProto::FLOAT});
      return;
    }
    add_value_info(graph_->add_input(), name({id, 0}), n.types.at(0),
                   elem({id, 0}));
    return;
  case OpKind::Weight: {
    const Tensor<float> &value = values_.at(n.name);
    // A Conv's bias is [C], not [C,1,1]; a recorded node reads a weight in
    // the model's dims.
    Tensor<float> reshaped;
    const bool conv_bias = fusions_.conv_bias_weights.count(id) > 0;
    if (conv_bias)
      reshaped = Tensor<float>(Shape{value.shape[0]}, value.data);
    else if (auto d = weight_dims_.find(id); d != weight_dims_.end())
      reshaped = Tensor<float>(Shape(d->second), value.data);
    const Tensor<float> &written =
        conv_bias || weight_dims_.count(id) ? reshaped : value;
    if (cast_variable(n)) {
      *graph_->add_initializer() = onnx_io::encode_tensor(
          variable_name({id, 0}), written, input_elem_.at(n.name));
      if (!raw_only_.count(id))
        attr(node("Cast", {variable_name({id, 0})}, {out}), "to",
             int64_t{onnx::TensorProto::FLOAT});
      return;
    }
    if (!emit_folded_weight(id, written))
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
    attr(node("Split", {in(n, 0), ints(derived(out, "_sizes"), sizes)}, outs),
         "axis", axis);
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
          ints(derived(out, "_pads"),
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
         {in(n, 0), ints(derived(out, "_shape"),
                         reshape_target(x0, n.types.at(0).shape))},
         {out});
    return;
  case OpKind::Pointwise:
  case OpKind::Broadcast:
  case OpKind::Where:
  case OpKind::Softmax:
  case OpKind::LayerNorm:
  case OpKind::GridSample:
  case OpKind::Hardmax:
  case OpKind::GatherElements:
  case OpKind::ReduceMean:
  case OpKind::Reduce:
  case OpKind::Slice:
  case OpKind::Pad:
  case OpKind::Pool2DExplicit:
  case OpKind::ConvTranspose:
  case OpKind::Resize:
    return emit_float_only(n, out);
  }
  // No default: an operator added to QUARRY_OPS without an ONNX form here
  // is a compile error (-Wswitch).
}

void Exporter::emit_composite(PointwiseFn fn, const std::string &x,
                              const std::string &out) {
  if (fn == PointwiseFn::Silu) {
    node("Sigmoid", {x}, {derived(out, "_sigmoid")});
    node("Mul", {x, derived(out, "_sigmoid")}, {out});
    return;
  }
  node("Div", {x, scalar(derived(out, "_sqrt2"), static_cast<float>(M_SQRT2))},
       {derived(out, "_scaled")});
  node("Erf", {derived(out, "_scaled")}, {derived(out, "_erf")});
  node("Add", {derived(out, "_erf"), scalar(derived(out, "_one"), 1.0f)},
       {derived(out, "_sum")});
  node("Mul", {x, derived(out, "_sum")}, {derived(out, "_product")});
  node("Mul", {derived(out, "_product"), scalar(derived(out, "_half"), 0.5f)},
       {out});
}

void Exporter::emit_float_only(const Node &n, const std::string &out) {
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
      ins.push_back(scalar(derived(out, "_min"), alpha));
      ins.push_back(scalar(derived(out, "_max"), beta));
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
    std::string truth = derived(out, "_bool");
    node(types[static_cast<int>(fn)], {in(n, 0), in(n, 1)}, {truth});
    if (fn == BroadcastFn::Ne) {
      node("Not", {truth}, {derived(out, "_not")});
      truth = derived(out, "_not");
    }
    attr(node("Cast", {truth}, {out}), "to", int64_t{onnx::TensorProto::FLOAT});
    return;
  }
  case OpKind::Where: {
    // One bool per condition, so that the Wheres of one If read one value
    // (wheres_as_ifs writes them back as that If).
    const std::string cond = derived(in(n, 0), "_condition");
    if (bool_conditions_.insert(cond).second)
      attr(node("Cast", {in(n, 0)}, {cond}), "to",
           int64_t{onnx::TensorProto::BOOL});
    node("Where", {cond, in(n, 1), in(n, 2)}, {out});
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
    attr(l, "epsilon", static_cast<float>(n.attrs.real(ops::LayerNorm::kEps)));
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
    attr(node("Cast", {in(n, 1)}, {derived(out, "_indices")}), "to",
         int64_t{onnx::TensorProto::INT64});
    attr(node("GatherElements", {in(n, 0), derived(out, "_indices")}, {out}),
         "axis", n.attrs.i(ops::GatherElements::kAxis));
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
               {in(n, 0), ints(derived(out, "_axes"), n.attrs.list(R::kAxes))},
               {out});
    else
      r = node("Reduce" +
                   onnx_io::onnx_name(ops::kReduceNames[static_cast<int>(fn)]),
               {in(n, 0)}, {out});
    if (fn != ops::ReduceFn::Sum)
      attr(r, "axes", n.attrs.list(R::kAxes));
    attr(r, "keepdims", n.attrs.i(R::kKeepDims));
    return;
  }
  case OpKind::Slice: {
    using S = ops::Slice;
    node("Slice",
         {in(n, 0), ints(derived(out, "_starts"), n.attrs.list(S::kStarts)),
          ints(derived(out, "_ends"), n.attrs.list(S::kEnds)),
          ints(derived(out, "_axes"), n.attrs.list(S::kAxes)),
          ints(derived(out, "_steps"), n.attrs.list(S::kSteps))},
         {out});
    return;
  }
  case OpKind::Pad: {
    auto *p = node("Pad",
                   {in(n, 0),
                    ints(derived(out, "_pads"), n.attrs.list(ops::Pad::kPads)),
                    scalar(derived(out, "_value"),
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
    auto *r = node("Resize",
                   {in(n, 0), "", "",
                    ints(derived(out, "_sizes"), n.attrs.list(R::kShape))},
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
  case OpKind::Input:
  case OpKind::Weight:
  case OpKind::Opaque:
  case OpKind::MatMul:
  case OpKind::Conv2D:
  case OpKind::Pool2DAvg:
  case OpKind::Pool2DMax:
  case OpKind::Relu:
  case OpKind::Sigmoid:
  case OpKind::Tanh:
  case OpKind::EwAdd:
  case OpKind::EwMul:
  case OpKind::ScalarMul:
  case OpKind::Concat:
  case OpKind::Split:
  case OpKind::Transpose:
  case OpKind::Enlarge:
  case OpKind::ConstPool:
  case OpKind::ConstIConv:
  case OpKind::ConstImm:
  case OpKind::ConstOne:
  case OpKind::BatchNorm:
  case OpKind::Reshape:
    break; // emit()'s
  }
  throw Error("export: operator " + std::string(op_name(n.kind)) +
              " is not a float-only operator");
}

} // namespace quarry::onnx_io
