//===- kernels_float_only.cc - Imported networks' operators on the cpu ----===//
//
// The float-only operators of ONNX import (core/ops/float_only.h), through
// oneDNN where it has the operation and through loops or the reference
// semantics where it does not.
//
//===----------------------------------------------------------------------===//
#include "kernels.h"
#include "pointwise_loops.h"
#include "primitive_step.h"

#include <optional>
#include <tuple>

namespace quarry::runtime::cpu {

namespace {

using dnnl::memory;
using tag = dnnl::memory::format_tag;
constexpr auto kF32 = dnnl::memory::data_type::f32;

/// Broadcasting both ways (or pow): plain loops, the innermost axis
/// contiguous in the result.
Lowered broadcast_loops(ops::BroadcastFn fn, CpuOperands in, ResultTypes out) {
  const Shape r = out[0].shape;
  const auto sa = ops::broadcast_strides(in[0].shape(), r);
  const auto sb = ops::broadcast_strides(in[1].shape(), r);
  Lowered l;
  l.in = plain_mds(in);
  l.out = plain_mds(out);
  l.impl = "loops";
  l.bind = [fn, r, sa, sb](const Bound &b) -> Step {
    return [fn, r, sa, sb, x = b.in[0], y = b.in[1], z = b.out[0]] {
      const int rank = r.rank();
      const int64_t inner = rank ? r[rank - 1] : 1;
      const int64_t ia = rank ? sa[rank - 1] : 0, ib = rank ? sb[rank - 1] : 0;
      const int64_t total = r.numel();
      std::vector<int64_t> idx(std::max(rank - 1, 0), 0);
      int64_t oa = 0, ob = 0;
      for (int64_t o = 0; o < total; o += inner) {
        for (int64_t i = 0; i < inner; ++i)
          z[o + i] = ops::broadcast_value(fn, x[oa + i * ia], y[ob + i * ib]);
        // Odometer over the outer axes.
        for (int ax = rank - 2; ax >= 0; --ax) {
          oa += sa[ax];
          ob += sb[ax];
          if (++idx[ax] < r[ax])
            break;
          oa -= sa[ax] * r[ax];
          ob -= sb[ax] * r[ax];
          idx[ax] = 0;
        }
      }
    };
  };
  return l;
}

/// By one value per channel over a computed 4-D operand in nhwc or nchw (a
/// squeeze-excitation's scale, which exporters write first or second):
/// rows of channels, or planes by one value each. oneDNN's binary took
/// about twice as long as a pass of reading and writing the operand.
std::optional<Lowered> channel_lowered(ops::BroadcastFn fn, CpuOperands in,
                                       const Shape &r) {
  for (const int s : {0, 1}) {
    const CpuOperand &full = in[s], &per_channel = in[1 - s];
    const auto span = channel_span(full.md, r);
    if ((s == 1 && !ops::commutative(fn)) || !span || r[1] < 2 ||
        full.shape() != r || full.is_static() ||
        per_channel.shape().rank() > 4 ||
        aligned_dims(per_channel.shape(), 4) != dims{1, r[1], 1, 1})
      continue;
    const auto [outer, inner] = *span;
    Lowered l;
    l.in.resize(2);
    l.in[s] = full.md;
    l.in[1 - s] = plain_md(per_channel.shape());
    l.out = {full.md};
    l.impl = "loops";
    l.bind = [fn, s, outer = outer, c = r[1],
              inner = inner](const Bound &b) -> Step {
      return [fn, outer, c, inner, x = b.in[s], y = b.in[1 - s], z = b.out[0]] {
        channel_loop(fn, x, y, z, outer, c, inner);
      };
    };
    return l;
  }
  return std::nullopt;
}

} // namespace

Lowered CpuKernel<ops::Broadcast>::make(Context &c, const Node &n,
                                        CpuOperands in, ResultTypes out,
                                        PostOps) {
  const auto fn = static_cast<ops::BroadcastFn>(n.attrs.i(ops::Broadcast::kFn));
  const Shape &r = out[0].shape;
  // By a scalar or an operand of the same shape, over a computed operand in
  // a layout without blocks: one loop over the elements (oneDNN's binary
  // walks a plain [1,4420,2] two elements at a time, ten times slower).
  if (const bool scalar = in[1].shape().numel() == 1;
      in[0].shape() == r && !in[0].is_static() && dense_strides(in[0].md) &&
      (scalar || in[1].shape() == r)) {
    const memory::desc md =
        !scalar && in[1].is_static() ? plain_md(r) : in[0].md;
    Lowered l;
    l.in = {md, scalar ? plain_md(in[1].shape()) : md};
    l.out = {md};
    l.impl = "loops";
    l.bind = [fn, scalar, count = r.numel()](const Bound &b) -> Step {
      return [fn, scalar, count, x = b.in[0], y = b.in[1], z = b.out[0]] {
        binary_loop(fn, x, y, scalar, z, count);
      };
    };
    return l;
  }
  if (auto l = channel_lowered(fn, in, r))
    return std::move(*l);
  // oneDNN 2.6's comparisons (binary_gt, ...) are wrong on nChw8c operands
  // whose channels end inside a block: comparisons take the loops.
  if (fn != ops::BroadcastFn::Pow && !ops::is_comparison(fn)) {
    // oneDNN broadcasts its second source only: the first must have the
    // result's shape (prefer a computed one, whose layout it keeps).
    const bool a_full = in[0].shape() == r,
               b_full = in[1].shape() == r && ops::commutative(fn);
    if (a_full && (!in[0].is_static() || !b_full))
      return binary_lowered(c, binary_algorithm(fn), in, 0, r);
    if (b_full)
      return binary_lowered(c, binary_algorithm(fn), in, 1, r);
  }
  return broadcast_loops(fn, in, out);
}

Lowered CpuKernel<ops::Pointwise>::make(Context &c, const Node &n,
                                        CpuOperands in, ResultTypes out,
                                        PostOps) {
  using P = ops::Pointwise;
  const auto fn = static_cast<ops::PointwiseFn>(n.attrs.i(P::kFn));
  const float alpha = static_cast<float>(n.attrs.real(P::kAlpha));
  const float beta = static_cast<float>(n.attrs.real(P::kBeta));
  if (const auto alg = pointwise_algorithm(fn, alpha, beta)) {
    const auto [a, a_alpha, a_beta] = *alg;
    return eltwise_lowered(c, a, a_alpha, a_beta, in);
  }
  // Each element alone: any layout without padding will do (a blocked
  // layout's padding would take values f(0) that are not 0).
  const memory::desc md =
      dense_strides(in[0].md) ? in[0].md : plain_md(in[0].shape());
  Lowered l;
  l.in = {md};
  l.out = {md};
  l.impl = "loops";
  l.bind = [fn, alpha, beta,
            count = out[0].shape.numel()](const Bound &b) -> Step {
    return [fn, alpha, beta, count, x = b.in[0], y = b.out[0]] {
      pointwise_loop(fn, alpha, beta, x, y, count);
    };
  };
  return l;
}

Lowered CpuKernel<ops::Pool2DExplicit>::make(Context &c, const Node &n,
                                             CpuOperands in, ResultTypes out,
                                             PostOps) {
  using P = ops::Pool2DExplicit;
  const auto &k = n.attrs.list(P::kKernel);
  const auto &s = n.attrs.list(P::kStride);
  const auto &p = n.attrs.list(P::kPads); // t, l, b, r
  const auto &dil = n.attrs.list(P::kDilation);
  const bool max = n.attrs.i(P::kFn) == 1;
  const bool count_pad = n.attrs.i(P::kCountPad) != 0;
  const auto alg = max         ? dnnl::algorithm::pooling_max
                   : count_pad ? dnnl::algorithm::pooling_avg_include_padding
                               : dnnl::algorithm::pooling_avg_exclude_padding;
  // oneDNN rounds its output extent down: a ceil-mode last window that
  // reaches past the trailing pad needs that much more padding, which an
  // average counting pads must not count (reference code then).
  dims after(2);
  for (int i = 0; i < 2; ++i) {
    const int64_t span = (k[i] - 1) * dil[i] + 1;
    after[i] = std::max(p[i + 2], (out[0].shape[2 + i] - 1) * s[i] + span -
                                      in[0].shape()[2 + i] - p[i]);
    if (!max && count_pad && after[i] != p[i + 2])
      return reference_kernel(n, in, out);
  }
  const memory::desc dst(to_dims(out[0].shape), kF32, tag::any);
  // oneDNN counts dilation from 0 (adjacent taps).
  const dnnl::pooling_v2_forward::desc d(
      dnnl::prop_kind::forward_inference, alg, in[0].md, dst, {s[0], s[1]},
      {k[0], k[1]}, {dil[0] - 1, dil[1] - 1}, {p[0], p[1]}, after);
  return pooling_lowered(c,
                         dnnl::pooling_v2_forward::primitive_desc(d, c.engine));
}

namespace {

/// oneDNN's reduction `alg` of in[0] over `axes`. It reduces to kept
/// dimensions (extent 1 on reduced axes): the same floats as the result
/// with or without keepdims.
Lowered reduction_lowered(Context &c, dnnl::algorithm alg, float p,
                          const std::vector<int64_t> &axes, CpuOperands in,
                          ResultTypes out) {
  const Shape &x = in[0].shape();
  dims kept = to_dims(x);
  for (int64_t axis : axes)
    kept[ops::normalize_axis("reduce", axis, x.rank())] = 1;
  // The largest or smallest of all elements is the same in any order: an
  // operand whose layout holds just its floats (nhwc) is read as they lie,
  // as a flat vector, not reordered to plain first (a dynamic
  // quantization's range of each activation).
  const bool any_order = alg == dnnl::algorithm::reduction_max ||
                         alg == dnnl::algorithm::reduction_min;
  const bool packed =
      dense_strides(in[0].md) &&
      in[0].md.get_size() == static_cast<size_t>(x.numel()) * sizeof(float);
  const bool flat = any_order && packed && dims(kept.size(), 1) == kept;
  const auto src = flat ? plain_md(dims{x.numel()}) : plain_md(x);
  const auto dst = flat ? plain_md(dims{1}) : plain_md(kept);
  const dnnl::reduction::primitive_desc pd(
      dnnl::reduction::desc(alg, src, dst, p, 0.0f), c.engine);
  Lowered l;
  l.in = {flat ? in[0].md : src};
  l.out = plain_mds(out);
  l.impl = impl_name(pd);
  l.bind = [&c, pd, src, dst](const Bound &b) {
    return primitive_step(c, dnnl::reduction(pd),
                          {{DNNL_ARG_SRC, memory(src, c.engine, b.in[0])},
                           {DNNL_ARG_DST, memory(dst, c.engine, b.out[0])}});
  };
  return l;
}

/// Whether every reduced axis has extent 1: oneDNN then has no reduction
/// to create (its source and result dims would be equal).
bool reduces_nothing(const Shape &x, const std::vector<int64_t> &axes) {
  for (int64_t axis : axes)
    if (x[ops::normalize_axis("reduce", axis, x.rank())] != 1)
      return false;
  return true;
}

} // namespace

Lowered CpuKernel<ops::ReduceMean>::make(Context &c, const Node &n,
                                         CpuOperands in, ResultTypes out,
                                         PostOps) {
  if (reduces_nothing(in[0].shape(), n.attrs.list(ops::ReduceMean::kAxes)))
    return reference_kernel(n, in, out);
  return reduction_lowered(c, dnnl::algorithm::reduction_mean, 0.0f,
                           n.attrs.list(ops::ReduceMean::kAxes), in, out);
}

Lowered CpuKernel<ops::Reduce>::make(Context &c, const Node &n, CpuOperands in,
                                     ResultTypes out, PostOps) {
  using A = dnnl::algorithm;
  using F = ops::ReduceFn;
  const auto &axes = n.attrs.list(ops::Reduce::kAxes);
  if (reduces_nothing(in[0].shape(), axes))
    return reference_kernel(n, in, out);
  switch (static_cast<F>(n.attrs.i(ops::Reduce::kFn))) {
  case F::Sum:
    return reduction_lowered(c, A::reduction_sum, 0.0f, axes, in, out);
  case F::Max:
    return reduction_lowered(c, A::reduction_max, 0.0f, axes, in, out);
  case F::Min:
    return reduction_lowered(c, A::reduction_min, 0.0f, axes, in, out);
  case F::Prod:
    return reduction_lowered(c, A::reduction_mul, 0.0f, axes, in, out);
  case F::L1:
    return reduction_lowered(c, A::reduction_norm_lp_sum, 1.0f, axes, in, out);
  case F::L2:
    return reduction_lowered(c, A::reduction_norm_lp_sum, 2.0f, axes, in, out);
  case F::SumSquare:
    return reduction_lowered(c, A::reduction_norm_lp_power_p_sum, 2.0f, axes,
                             in, out);
  default: // log_sum, log_sum_exp: their reference semantics
    return reference_kernel(n, in, out);
  }
}

Lowered CpuKernel<ops::ConvTranspose>::make(Context &c, const Node &n,
                                            CpuOperands in, ResultTypes out,
                                            PostOps) {
  using CT = ops::ConvTranspose;
  const Shape &x = in[0].shape(), &w = in[1].shape();
  const auto &s = n.attrs.list(CT::kStride);
  const auto &p = n.attrs.list(CT::kPads);
  const auto &op = n.attrs.list(CT::kOutPad);
  const int64_t g = n.attrs.i(CT::kGroups);
  // ONNX weights [c, co/g, kh, kw] are oneDNN's (g)iohw.
  const dims wdims = g > 1 ? dims{g, w[1], w[0] / g, w[2], w[3]}
                           : dims{w[1], w[0], w[2], w[3]};
  const memory::desc wplain(wdims, kF32, g > 1 ? tag::giohw : tag::iohw);
  const memory::desc wmd =
      in[1].is_static() ? memory::desc(wdims, kF32, tag::any) : wplain;
  const dnnl::deconvolution_forward::desc d(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::deconvolution_direct,
      memory::desc(to_dims(x), kF32, tag::any), wmd,
      memory::desc(to_dims(out[0].shape), kF32, tag::any), {s[0], s[1]},
      {p[0], p[1]}, {p[2] - op[0], p[3] - op[1]});
  dnnl::deconvolution_forward::primitive_desc pd;
  try {
    pd = dnnl::deconvolution_forward::primitive_desc(d, c.engine);
  } catch (const dnnl::error &) {
    return reference_kernel(n, in, out); // output padding beyond the pads
  }
  dnnl::memory weights;
  if (in[1].is_static()) {
    weights = dnnl::memory(pd.weights_desc(), c.engine);
    dnnl::memory from(wplain, c.engine, const_cast<float *>(in[1].static_data));
    dnnl::reorder(from, weights).execute(c.stream, from, weights);
    c.stream.wait();
  }
  Lowered l;
  l.in = plain_mds(in);
  l.in[0] = pd.src_desc();
  l.out = {pd.dst_desc()};
  l.impl = impl_name(pd);
  l.bind = [&c, pd, weights, wplain](const Bound &b) {
    return primitive_step(
        c, dnnl::deconvolution_forward(pd),
        {{DNNL_ARG_SRC, memory(pd.src_desc(), c.engine, b.in[0])},
         {DNNL_ARG_WEIGHTS,
          weights ? weights : memory(wplain, c.engine, b.in[1])},
         {DNNL_ARG_DST, memory(pd.dst_desc(), c.engine, b.out[0])}});
  };
  return l;
}

Lowered CpuKernel<ops::LayerNorm>::make(Context &c, const Node &n,
                                        CpuOperands in, ResultTypes out,
                                        PostOps) {
  using L = ops::LayerNorm;
  const auto [rows, row] = L::rows(n.attrs, in[0].shape());
  // oneDNN normalizes over the last axis: the rows as a [rows, row] matrix,
  // which is how a plain tensor lies in memory; scale and bias as [row].
  const memory::desc md({rows, row}, kF32, tag::ab);
  const memory::desc per_element({row}, kF32, tag::a);
  const bool has_bias = in.size() > 2;
  const auto flags = has_bias ? dnnl::normalization_flags::use_scale |
                                    dnnl::normalization_flags::use_shift
                              : dnnl::normalization_flags::use_scale;
  const dnnl::layer_normalization_forward::desc d(
      dnnl::prop_kind::forward_inference, md,
      static_cast<float>(n.attrs.real(L::kEps)), flags);
  const dnnl::layer_normalization_forward::primitive_desc pd(d, c.engine);
  Lowered l;
  l.in = plain_mds(in);
  l.out = plain_mds(out);
  l.impl = impl_name(pd);
  l.bind = [&c, pd, md, per_element, has_bias](const Bound &b) {
    Args args{{DNNL_ARG_SRC, memory(md, c.engine, b.in[0])},
              {DNNL_ARG_DST, memory(md, c.engine, b.out[0])},
              {DNNL_ARG_SCALE, memory(per_element, c.engine, b.in[1])}};
    if (has_bias)
      args.emplace(DNNL_ARG_SHIFT, memory(per_element, c.engine, b.in[2]));
    return primitive_step(c, dnnl::layer_normalization_forward(pd),
                          std::move(args));
  };
  return l;
}

} // namespace quarry::runtime::cpu
