//===- kernels_dnnl.cc - cpu operators lowered to oneDNN primitives -------===//
//
// Each make() builds its primitive once, at prepare time, over memory
// objects that wrap the planned buffers; the step only executes it.
//
//===----------------------------------------------------------------------===//
#include "dnnl_util.h"
#include "kernels.h"

namespace quarry::runtime::cpu {

namespace {

using dnnl::memory;
using tag = dnnl::memory::format_tag;
constexpr auto kF32 = dnnl::memory::data_type::f32;

dnnl::memory wrap(const Context &c, const memory::desc &md, const Operand &o) {
  return dnnl::memory(md, c.engine, o.data);
}

Step step(const Context &c, dnnl::primitive p, Args args) {
  return [p = std::move(p), args = std::move(args), s = c.stream] {
    p.execute(s, args);
  };
}

template <class Pd>
Step eltwise_step(Context &c, UnaryFn fn, Operands in, Operands out) {
  const auto md = plain_md(in[0].shape());
  const dnnl::eltwise_forward::desc d(dnnl::prop_kind::forward_inference,
                                      eltwise_algorithm(fn), md, 0.0f, 0.0f);
  const Pd pd(d, c.engine);
  return step(c, dnnl::eltwise_forward(pd),
              {{DNNL_ARG_SRC, wrap(c, md, in[0])},
               {DNNL_ARG_DST, wrap(c, md, out[0])}});
}

Step binary_step(Context &c, dnnl::algorithm alg, Operands in, Operands out) {
  const auto md = plain_md(in[0].shape());
  const dnnl::binary::desc d(alg, md, md, md);
  const dnnl::binary::primitive_desc pd(d, c.engine);
  return step(c, dnnl::binary(pd),
              {{DNNL_ARG_SRC_0, wrap(c, md, in[0])},
               {DNNL_ARG_SRC_1, wrap(c, md, in[1])},
               {DNNL_ARG_DST, wrap(c, md, out[0])}});
}

template <class Def>
Step pool_step(Context &c, const Node &n, dnnl::algorithm alg, Operands in,
               Operands out) {
  const Shape &x = in[0].shape();
  const auto [wy, wx] = Def::windows(n.attrs, x);
  const auto &k = n.attrs.list(Def::kKernel);
  const auto &s = n.attrs.list(Def::kStride);
  const auto src = plain_md(x), dst = plain_md(out[0].shape());
  const dnnl::pooling_forward::desc d(
      dnnl::prop_kind::forward_inference, alg, src, dst, {s[0], s[1]},
      {k[0], k[1]}, {wy.pad_before, wx.pad_before},
      {pad_after(x[2], k[0], s[0], wy.out, wy.pad_before),
       pad_after(x[3], k[1], s[1], wx.out, wx.pad_before)});
  const dnnl::pooling_forward::primitive_desc pd(d, c.engine);
  return step(c, dnnl::pooling_forward(pd),
              {{DNNL_ARG_SRC, wrap(c, src, in[0])},
               {DNNL_ARG_DST, wrap(c, dst, out[0])}});
}

} // namespace

Step CpuKernel<ops::Conv2D>::make(Context &c, const Node &n, Operands in,
                                  Operands out) {
  using Conv = ops::Conv2D;
  const auto g = Conv::geometry(n.attrs, in[0].shape(), in[1].shape());
  const auto &s = n.attrs.list(Conv::kStride);
  // Weights [co, c/g, kh, kw] are, byte for byte, goihw with g groups.
  const dims wdims = g.groups > 1
                         ? dims{g.groups, g.co / g.groups, g.cw, g.kh, g.kw}
                         : dims{g.co, g.cw, g.kh, g.kw};
  const auto wplain = plain_md(wdims);
  const auto src = plain_md(in[0].shape()), dst = plain_md(out[0].shape());
  // Static weights let oneDNN choose their layout; they are reordered once.
  const memory::desc wmd =
      in[1].is_static ? memory::desc(wdims, kF32, tag::any) : wplain;
  const dnnl::convolution_forward::desc d(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
      src, wmd, dst, {s[0], s[1]}, {g.y.pad_before, g.x.pad_before},
      {pad_after(g.h, g.kh, s[0], g.y.out, g.y.pad_before),
       pad_after(g.w, g.kw, s[1], g.x.out, g.x.pad_before)});
  const dnnl::convolution_forward::primitive_desc pd(
      d, activation_attr(static_cast<Activation>(n.attrs.i(Conv::kAct))),
      c.engine);
  dnnl::memory weights = wrap(c, wplain, in[1]);
  if (in[1].is_static && pd.weights_desc() != wplain) {
    dnnl::memory laid_out(pd.weights_desc(), c.engine);
    dnnl::reorder(weights, laid_out).execute(c.stream, weights, laid_out);
    c.stream.wait();
    weights = laid_out;
  }
  return step(c, dnnl::convolution_forward(pd),
              {{DNNL_ARG_SRC, wrap(c, src, in[0])},
               {DNNL_ARG_WEIGHTS, weights},
               {DNNL_ARG_DST, wrap(c, dst, out[0])}});
}

Step CpuKernel<ops::MatMul>::make(Context &c, const Node &n, Operands in,
                                  Operands out) {
  // Leading (batch) dimensions collapse into one.
  const Shape &a = in[0].shape(), &b = in[1].shape();
  const int r = a.rank();
  const int64_t m = a[r - 2], k = a[r - 1], nn = b[r - 1];
  const int64_t batch = a.numel() / (m * k);
  const auto amd = plain_md(dims{batch, m, k});
  const auto bmd = plain_md(dims{batch, k, nn});
  const auto cmd = plain_md(dims{batch, m, nn});
  const dnnl::matmul::desc d(amd, bmd, cmd);
  const dnnl::matmul::primitive_desc pd(
      d, activation_attr(static_cast<Activation>(n.attrs.i(ops::MatMul::kAct))),
      c.engine);
  return step(c, dnnl::matmul(pd),
              {{DNNL_ARG_SRC, wrap(c, amd, in[0])},
               {DNNL_ARG_WEIGHTS, wrap(c, bmd, in[1])},
               {DNNL_ARG_DST, wrap(c, cmd, out[0])}});
}

Step CpuKernel<ops::Pool2DAvg>::make(Context &c, const Node &n, Operands in,
                                     Operands out) {
  // quarry always divides by kh*kw, counting padded zeros.
  return pool_step<ops::Pool2DAvg>(
      c, n, dnnl::algorithm::pooling_avg_include_padding, in, out);
}

Step CpuKernel<ops::Pool2DMax>::make(Context &c, const Node &n, Operands in,
                                     Operands out) {
  return pool_step<ops::Pool2DMax>(c, n, dnnl::algorithm::pooling_max, in, out);
}

Step CpuKernel<ops::Relu>::make(Context &c, const Node &, Operands in,
                                Operands out) {
  return eltwise_step<dnnl::eltwise_forward::primitive_desc>(c, UnaryFn::Relu,
                                                             in, out);
}

Step CpuKernel<ops::Sigmoid>::make(Context &c, const Node &, Operands in,
                                   Operands out) {
  return eltwise_step<dnnl::eltwise_forward::primitive_desc>(
      c, UnaryFn::Sigmoid, in, out);
}

Step CpuKernel<ops::Tanh>::make(Context &c, const Node &, Operands in,
                                Operands out) {
  return eltwise_step<dnnl::eltwise_forward::primitive_desc>(c, UnaryFn::Tanh,
                                                             in, out);
}

Step CpuKernel<ops::EwAdd>::make(Context &c, const Node &, Operands in,
                                 Operands out) {
  return binary_step(c, dnnl::algorithm::binary_add, in, out);
}

Step CpuKernel<ops::EwMul>::make(Context &c, const Node &, Operands in,
                                 Operands out) {
  return binary_step(c, dnnl::algorithm::binary_mul, in, out);
}

Step CpuKernel<ops::BatchNorm>::make(Context &c, const Node &n, Operands in,
                                     Operands out) {
  const auto md = plain_md(in[0].shape());
  const auto cmd = plain_md(in[1].shape());
  using flags = dnnl::normalization_flags;
  const dnnl::batch_normalization_forward::desc d(
      dnnl::prop_kind::forward_inference, md,
      static_cast<float>(n.attrs.real(ops::BatchNorm::kEps)),
      flags::use_global_stats | flags::use_scale | flags::use_shift);
  const dnnl::batch_normalization_forward::primitive_desc pd(d, c.engine);
  // Operands: x, scale, bias, mean, var.
  return step(c, dnnl::batch_normalization_forward(pd),
              {{DNNL_ARG_SRC, wrap(c, md, in[0])},
               {DNNL_ARG_SCALE, wrap(c, cmd, in[1])},
               {DNNL_ARG_SHIFT, wrap(c, cmd, in[2])},
               {DNNL_ARG_MEAN, wrap(c, cmd, in[3])},
               {DNNL_ARG_VARIANCE, wrap(c, cmd, in[4])},
               {DNNL_ARG_DST, wrap(c, md, out[0])}});
}

Step CpuKernel<ops::Concat>::make(Context &c, const Node &n, Operands in,
                                  Operands out) {
  std::vector<memory::desc> srcs;
  Args args;
  for (size_t i = 0; i < in.size(); ++i) {
    srcs.push_back(plain_md(in[i].shape()));
    args.emplace(DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i),
                 wrap(c, srcs.back(), in[i]));
  }
  const auto dst = plain_md(out[0].shape());
  const dnnl::concat::primitive_desc pd(
      dst, static_cast<int>(n.attrs.i(ops::Concat::kAxis)), srcs, c.engine);
  args.emplace(DNNL_ARG_DST, wrap(c, dst, out[0]));
  return step(c, dnnl::concat(pd), std::move(args));
}

Step CpuKernel<ops::Transpose>::make(Context &c, const Node &n, Operands in,
                                     Operands out) {
  // Read the input through permuted strides; write it out row-major.
  const auto &perm = n.attrs.list(ops::Transpose::kPerm);
  const auto in_strides = in[0].shape().strides();
  dims strides;
  for (int64_t p : perm)
    strides.push_back(in_strides[p]);
  const dims out_dims = to_dims(out[0].shape());
  if (strides.empty())
    strides = {1};
  const memory::desc src(out_dims, kF32, strides);
  const auto dst = plain_md(out_dims);
  const dnnl::reorder::primitive_desc pd(c.engine, src, c.engine, dst);
  return step(c, dnnl::reorder(pd),
              {{DNNL_ARG_FROM, wrap(c, src, in[0])},
               {DNNL_ARG_TO, wrap(c, dst, out[0])}});
}

Step CpuKernel<ops::Softmax>::make(Context &c, const Node &n, Operands in,
                                   Operands out) {
  const Shape &x = in[0].shape();
  const int axis = ops::normalize_axis(
      ops::Softmax::name, n.attrs.i(ops::Softmax::kAxis), x.rank());
  const auto md = plain_md(x);
  const dnnl::softmax_forward::desc d(dnnl::prop_kind::forward_inference, md,
                                      axis);
  const dnnl::softmax_forward::primitive_desc pd(d, c.engine);
  return step(c, dnnl::softmax_forward(pd),
              {{DNNL_ARG_SRC, wrap(c, md, in[0])},
               {DNNL_ARG_DST, wrap(c, md, out[0])}});
}

} // namespace quarry::runtime::cpu
