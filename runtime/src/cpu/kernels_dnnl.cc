//===- kernels_dnnl.cc - cpu operators lowered to oneDNN primitives -------===//
//
// Each make() builds its primitive once, at prepare time, and says which
// layouts it reads and writes; bind() wraps the planned buffers in memory
// objects, and the step only executes the primitive.
//
//===----------------------------------------------------------------------===//
#include "epilogue.h"
#include "gemv.h"
#include "kernels.h"
#include "pointwise_loops.h"
#include "primitive_step.h"
#include "softmax_lines.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

namespace quarry::runtime::cpu {

using dnnl::memory;
using tag = dnnl::memory::format_tag;
constexpr auto kF32 = dnnl::memory::data_type::f32;

Lowered eltwise_lowered(Context &c, dnnl::algorithm alg, float alpha,
                        float beta, CpuOperands in) {
  const auto md = in[0].md;
  const dnnl::eltwise_forward::desc d(dnnl::prop_kind::forward_inference, alg,
                                      md, alpha, beta);
  const dnnl::eltwise_forward::primitive_desc pd(d, c.engine);
  Lowered l;
  l.in = {md};
  l.out = {md};
  l.impl = impl_name(pd);
  l.bind = [&c, pd](const Bound &b) {
    return primitive_step(
        c, dnnl::eltwise_forward(pd),
        {{DNNL_ARG_SRC, memory(pd.src_desc(), c.engine, b.in[0])},
         {DNNL_ARG_DST, memory(pd.dst_desc(), c.engine, b.out[0])}});
  };
  return l;
}

/// oneDNN binary: src0 in the layout it has, src1 broadcast over it (its
/// dims right-aligned, 1 where it repeats). A full-shape static src1 is laid
/// out once in src0's layout.
Lowered binary_lowered(Context &c, dnnl::algorithm alg, CpuOperands in, int s0,
                       const Shape &out_shape) {
  const int s1 = 1 - s0;
  const CpuOperand &a = in[s0], &b = in[s1];
  // A static src0 is plain; a computed one stays in its layout.
  memory::desc md0 = a.is_static() ? plain_md(out_shape) : a.md;
  const bool full = b.shape() == out_shape;
  memory::desc md1 =
      full ? md0 : plain_md(aligned_dims(b.shape(), out_shape.rank()));
  auto make_pd = [&] {
    return dnnl::binary::primitive_desc(dnnl::binary::desc(alg, md0, md1, md0),
                                        c.engine);
  };
  auto pd = make_pd();
  if (is_reference_impl(impl_name(pd)) && !is_plain(md0)) {
    // This broadcast has no fast path in a blocked layout: go plain.
    md0 = plain_md(out_shape);
    md1 = full ? md0 : md1;
    pd = make_pd();
  }
  dnnl::memory laid_out;
  if (b.is_static() && !is_plain(md1))
    laid_out = laid_out_copy(c.engine, c.stream, c.statics, md1, b.static_data);
  Lowered l;
  l.in.resize(2);
  l.in[s0] = md0;
  l.in[s1] = full ? md1 : plain_md(b.shape());
  l.out = {md0};
  l.impl = impl_name(pd);
  l.bind = [&c, pd, s0, s1, md1, laid_out](const Bound &bd) {
    return primitive_step(
        c, dnnl::binary(pd),
        {{DNNL_ARG_SRC_0, memory(pd.src_desc(0), c.engine, bd.in[s0])},
         {DNNL_ARG_SRC_1,
          laid_out ? laid_out : memory(md1, c.engine, bd.in[s1])},
         {DNNL_ARG_DST, memory(pd.dst_desc(), c.engine, bd.out[0])}});
  };
  return l;
}

std::optional<Lowered> split_in_layout(Context &c, int axis, CpuOperands in,
                                       ResultTypes out) {
  const memory::desc &src = in[0].md;
  const auto layout = activation_tag(src);
  if (in[0].is_static() || !layout || is_plain(src))
    return std::nullopt;
  Lowered l;
  l.in = {src};
  std::vector<dnnl::reorder::primitive_desc> parts;
  dims offsets(src.dims().size(), 0);
  try {
    for (const TensorType &t : out) {
      const dims part = to_dims(t.shape);
      l.out.push_back(memory::desc(part, kF32, *layout));
      parts.emplace_back(c.engine, src.submemory_desc(part, offsets), c.engine,
                         l.out.back());
      offsets[axis] += part[axis];
    }
  } catch (const dnnl::error &) {
    return std::nullopt; // a part that does not start on a block
  }
  if (is_reference_impl(impl_name(parts.front())))
    return std::nullopt;
  l.impl = impl_name(parts.front());
  l.bind = [&c, parts](const Bound &b) -> Step {
    std::vector<std::pair<dnnl::reorder, Args>> steps;
    for (size_t k = 0; k < parts.size(); ++k)
      steps.emplace_back(
          dnnl::reorder(parts[k]),
          // The part's sub-memory view of the whole operand.
          Args{{DNNL_ARG_FROM, memory(parts[k].src_desc(), c.engine, b.in[0])},
               {DNNL_ARG_TO, memory(parts[k].dst_desc(), c.engine, b.out[k])}});
    return [steps = std::move(steps), s = c.stream]() mutable {
      for (auto &[p, args] : steps)
        p.execute(s, args);
    };
  };
  return l;
}

namespace {
template <class Primitive>
Lowered pooling_of(Context &c, const typename Primitive::primitive_desc &pd) {
  Lowered l;
  l.in = {pd.src_desc()};
  l.out = {pd.dst_desc()};
  l.impl = impl_name(pd);
  l.bind = [&c, pd](const Bound &b) {
    return primitive_step(
        c, Primitive(pd),
        {{DNNL_ARG_SRC, memory(pd.src_desc(), c.engine, b.in[0])},
         {DNNL_ARG_DST, memory(pd.dst_desc(), c.engine, b.out[0])}});
  };
  return l;
}
} // namespace

Lowered pooling_lowered(Context &c,
                        const dnnl::pooling_forward::primitive_desc &pd) {
  return pooling_of<dnnl::pooling_forward>(c, pd);
}

Lowered pooling_lowered(Context &c,
                        const dnnl::pooling_v2_forward::primitive_desc &pd) {
  return pooling_of<dnnl::pooling_v2_forward>(c, pd);
}

namespace {

template <class Def>
Lowered pool(Context &c, const Node &n, dnnl::algorithm alg, CpuOperands in,
             ResultTypes out, PostOps post) {
  const Shape &x = in[0].shape();
  const auto [wy, wx] = Def::windows(n.attrs, x);
  const auto &k = n.attrs.list(Def::kKernel);
  const auto &s = n.attrs.list(Def::kStride);
  if (Def::is_identity(n.attrs)) {
    // A 1x1 window with stride 1 is the identity (it takes no chain).
    return view_of_operand(in[0].md, in[0].md);
  }
  const dims result = to_dims(out[0].shape);
  const memory::desc dst(result, kF32, tag::any);
  const dnnl::pooling_forward::desc d(
      dnnl::prop_kind::forward_inference, alg, in[0].md, dst, {s[0], s[1]},
      {k[0], k[1]}, {wy.pad_before, wx.pad_before},
      {pad_after(x[2], k[0], s[0], wy.out, wy.pad_before),
       pad_after(x[3], k[1], s[1], wx.out, wx.pad_before)});
  if (post.empty())
    return pooling_lowered(c,
                           dnnl::pooling_forward::primitive_desc(d, c.engine));
  // The chain (a sum with a computed or static operand, an activation) as
  // post-ops of the pooling: its result is written once.
  const Epilogue epi(post, 0, 1, result, 1);
  const dnnl::pooling_forward::primitive_desc pd(d, epi.attr(), c.engine);
  Lowered l;
  const auto resolved = resolved_epilogue(c, pd, epi, in, l);
  l.in[0] = pd.src_desc();
  l.out = {pd.dst_desc()};
  l.bind = [&c, pd, resolved](const Bound &b) {
    Args args{{DNNL_ARG_SRC, memory(pd.src_desc(), c.engine, b.in[0])},
              {DNNL_ARG_DST, memory(pd.dst_desc(), c.engine, b.out[0])}};
    return epilogue_step(c, dnnl::pooling_forward(pd), *resolved, b,
                         std::move(args), pd.dst_desc());
  };
  return l;
}

} // namespace

Lowered CpuKernel<ops::MatMul>::make(Context &c, const Node &, CpuOperands in,
                                     ResultTypes out, PostOps post) {
  if (gemv_applies(in))
    return gemv_lowered(c, in, out, post);
  if (auto int8 = int8_matmul_lowered(c, in, out, post))
    return std::move(*int8);
  // Leading (batch) dimensions collapse into one; without a batch the
  // problem is 2-D, for which oneDNN has faster kernels (small m above all).
  const Shape &a = in[0].shape(), &b = in[1].shape();
  const int r = a.rank();
  const int64_t m = a[r - 2], k = a[r - 1], nn = b[r - 1];
  const int64_t batch = a.numel() / (m * k);
  auto batched = [batch](dims d) {
    if (batch > 1)
      d.insert(d.begin(), batch);
    return d;
  };
  // In bf16 mode a product with static weights reads both as bfloat16
  // (the weights converted once, the input by a reorder).
  const bool bf16 = c.bf16 && in[1].is_static();
  const memory::data_type src_type = bf16 ? memory::data_type::bf16 : kF32;
  const auto amd = plain_md(batched({m, k}), src_type);
  const auto bplain = plain_md(batched({k, nn}));
  const dims cdims = batched({m, nn});
  const auto cmd = plain_md(cdims);
  // Static weights are packed once in the layout oneDNN prefers.
  const memory::desc bmd =
      in[1].is_static() ? memory::desc(batched({k, nn}), src_type, tag::any)
                        : bplain;
  const Epilogue epi(post, 0, 2, cdims, static_cast<int>(cdims.size()) - 1);
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(amd, bmd, cmd),
                                        epi.attr(), c.engine);
  Lowered l;
  const AnchorParts parts = anchor_parts(c, pd, epi, in, l);
  if (bf16)
    l.in[0] = plain_md(to_dims(in[0].shape()), src_type);
  l.out = {plain_md(out[0].shape)};
  l.bind = [&c, pd, amd, bplain, cmd, parts](const Bound &b) {
    return anchor_step(c, dnnl::matmul(pd), parts, b, amd, bplain, cmd);
  };
  return l;
}

Lowered CpuKernel<ops::Pool2DAvg>::make(Context &c, const Node &n,
                                        CpuOperands in, ResultTypes out,
                                        PostOps post) {
  // quarry always divides by kh*kw, counting padded zeros.
  return pool<ops::Pool2DAvg>(
      c, n, dnnl::algorithm::pooling_avg_include_padding, in, out, post);
}

Lowered CpuKernel<ops::Pool2DMax>::make(Context &c, const Node &n,
                                        CpuOperands in, ResultTypes out,
                                        PostOps post) {
  return pool<ops::Pool2DMax>(c, n, dnnl::algorithm::pooling_max, in, out,
                              post);
}

Lowered CpuKernel<ops::Relu>::make(Context &c, const Node &, CpuOperands in,
                                   ResultTypes, PostOps) {
  return eltwise_lowered(c, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f, in);
}

Lowered CpuKernel<ops::Sigmoid>::make(Context &c, const Node &, CpuOperands in,
                                      ResultTypes, PostOps) {
  return eltwise_lowered(c, dnnl::algorithm::eltwise_logistic, 0.0f, 0.0f, in);
}

Lowered CpuKernel<ops::Tanh>::make(Context &c, const Node &, CpuOperands in,
                                   ResultTypes, PostOps) {
  return eltwise_lowered(c, dnnl::algorithm::eltwise_tanh, 0.0f, 0.0f, in);
}

Lowered CpuKernel<ops::EwAdd>::make(Context &c, const Node &, CpuOperands in,
                                    ResultTypes out, PostOps) {
  return binary_lowered(c, dnnl::algorithm::binary_add, in,
                        in[0].is_static() ? 1 : 0, out[0].shape);
}

Lowered CpuKernel<ops::EwMul>::make(Context &c, const Node &, CpuOperands in,
                                    ResultTypes out, PostOps) {
  return binary_lowered(c, dnnl::algorithm::binary_mul, in,
                        in[0].is_static() ? 1 : 0, out[0].shape);
}

Lowered CpuKernel<ops::ScalarMul>::make(Context &c, const Node &,
                                        CpuOperands in, ResultTypes out,
                                        PostOps) {
  // A static scale is an elementwise linear map (any layout); a computed
  // one a broadcast multiply.
  if (in[1].is_static()) {
    Lowered l = eltwise_lowered(c, dnnl::algorithm::eltwise_linear,
                                in[1].static_data[0], 0.0f, in.first(1));
    l.in.push_back(plain_md(in[1].shape()));
    return l;
  }
  return binary_lowered(c, dnnl::algorithm::binary_mul, in, 0, out[0].shape);
}

namespace {

/// A 4-D batchnorm of static statistics over nhwc or nchw as one product
/// and one sum per channel (then the relu the fusion policy lets it take),
/// as core's semantics compute it: oneDNN's took about twice as long as
/// copying the operand (a densely connected network's normalization of
/// each concatenation).
std::optional<Lowered> batchnorm_loops(const Node &n, CpuOperands in,
                                       PostOps post) {
  const auto span = channel_span(in[0].md, in[0].shape());
  const bool stats = std::all_of(in.begin() + 1, in.end(),
                                 [](const auto &o) { return o.is_static(); });
  const bool relu_or_none =
      post.empty() ||
      (post.size() == 1 && post[0].kind == PostOp::Kind::Unary &&
       post[0].unary == UnaryFn::Relu);
  if (!span || !stats || !relu_or_none)
    return std::nullopt;
  const int64_t channels = in[0].shape()[1];
  auto affine = std::make_shared<ChannelAffine>(batchnorm_affine(
      in[1].static_data, in[2].static_data, in[3].static_data,
      in[4].static_data, n.attrs.real(ops::BatchNorm::kEps), channels));
  const auto [outer, inner] = *span;
  Lowered l;
  l.in = plain_mds(in);
  l.in[0] = in[0].md;
  l.out = {in[0].md};
  l.impl = "loops";
  l.copied_static = {1, 2, 3, 4};
  l.bind = [affine, relu = !post.empty(), outer = outer, channels,
            inner = inner](const Bound &b) -> Step {
    return [affine, relu, outer, channels, inner, x = b.in[0], z = b.out[0]] {
      channel_affine_loop(x, affine->mul.data(), affine->add.data(), relu, z,
                          outer, channels, inner);
    };
  };
  return l;
}

} // namespace

Lowered CpuKernel<ops::BatchNorm>::make(Context &c, const Node &n,
                                        CpuOperands in, ResultTypes,
                                        PostOps post) {
  if (auto l = batchnorm_loops(n, in, post))
    return std::move(*l);
  // oneDNN's batch normalization of plain nchw is its generic code, an
  // order of magnitude slower than over nhwc: a 4-D plain operand is
  // reordered to nhwc first.
  const auto md = in[0].shape().rank() == 4 && is_plain(in[0].md)
                      ? memory::desc(to_dims(in[0].shape()), kF32, tag::nhwc)
                      : in[0].md;
  const auto cmd = plain_md(in[1].shape());
  using flags = dnnl::normalization_flags;
  // The one post-op the fusion policy lets a batchnorm take: a relu.
  const flags relu = post.empty() ? flags::none : flags::fuse_norm_relu;
  const dnnl::batch_normalization_forward::desc d(
      dnnl::prop_kind::forward_inference, md,
      static_cast<float>(n.attrs.real(ops::BatchNorm::kEps)),
      flags::use_global_stats | flags::use_scale | flags::use_shift | relu);
  const dnnl::batch_normalization_forward::primitive_desc pd(d, c.engine);
  Lowered l;
  l.in = plain_mds(in);
  l.in[0] = md;
  l.out = {md};
  l.impl = impl_name(pd);
  // Operands: x, scale, bias, mean, var.
  l.bind = [&c, pd, md, cmd](const Bound &b) {
    return primitive_step(c, dnnl::batch_normalization_forward(pd),
                          {{DNNL_ARG_SRC, memory(md, c.engine, b.in[0])},
                           {DNNL_ARG_SCALE, memory(cmd, c.engine, b.in[1])},
                           {DNNL_ARG_SHIFT, memory(cmd, c.engine, b.in[2])},
                           {DNNL_ARG_MEAN, memory(cmd, c.engine, b.in[3])},
                           {DNNL_ARG_VARIANCE, memory(cmd, c.engine, b.in[4])},
                           {DNNL_ARG_DST, memory(md, c.engine, b.out[0])}});
  };
  return l;
}

Lowered CpuKernel<ops::Concat>::make(Context &c, const Node &n, CpuOperands in,
                                     ResultTypes out, PostOps post) {
  const int axis = static_cast<int>(n.attrs.i(ops::Concat::kAxis));
  if (!post.empty()) {
    // The batchnorm the fusion policy lets it apply (and its relu): its
    // statics are the operands after the parts.
    const size_t parts = n.inputs.size();
    ChannelAffine affine =
        batchnorm_affine(in[parts].static_data, in[parts + 1].static_data,
                         in[parts + 2].static_data, in[parts + 3].static_data,
                         post[0].eps, out[0].shape[1]);
    return concat_affine_copies(in, parts, out, std::move(affine),
                                post.size() > 1);
  }
  // Row-major and channels-last operands are copied run by run: oneDNN
  // 2.6's concat of plain operands along channels is ten times slower.
  // Blocked ones (nChw16c) go to oneDNN, which copies whole blocks.
  const auto nhwc = tag::nhwc;
  const bool all_nhwc = std::all_of(in.begin(), in.end(), [&](const auto &o) {
    return !o.is_static() && activation_tag(o.md) == nhwc;
  });
  const bool blocked = std::any_of(in.begin(), in.end(), [](const auto &o) {
    return !o.is_static() && !dense_strides(o.md);
  });
  // Channels-last operands beside blocked ones (a Winograd kernel's
  // result in a channels-last network): copied in the network's layout,
  // the blocked ones reordered into it.
  const bool back_to_nhwc =
      c.activations == nhwc &&
      std::all_of(in.begin(), in.end(), [&](const auto &o) {
        return !o.is_static() && o.shape().rank() == 4 &&
               (activation_tag(o.md) == nhwc || !dense_strides(o.md));
      });
  if (all_nhwc || back_to_nhwc)
    return concat_copies(axis, nhwc, in, out);
  if (!blocked)
    return concat_copies(axis, tag::undef, in, out);
  // Channel blocks the operands fill (nChw16c, each operand's channels a
  // multiple of 16): an image's blocks of each operand are one run, which
  // oneDNN 2.6's concat copies far slower.
  if (const std::optional<tag> t = activation_tag(in[0].md);
      t && axis == 1 && channel_block(*t) > 1 &&
      std::all_of(in.begin(), in.end(), [&](const auto &o) {
        return !o.is_static() && activation_tag(o.md) == t &&
               o.shape()[1] % channel_block(*t) == 0;
      }))
    return concat_copies(axis, *t, in, out);
  auto make_pd = [&](bool keep_layouts) {
    std::vector<memory::desc> srcs;
    for (const CpuOperand &o : in)
      srcs.push_back(keep_layouts && !o.is_static() ? o.md
                                                    : plain_md(o.shape()));
    // oneDNN picks the result's layout from the operands'.
    return dnnl::concat::primitive_desc(axis, srcs, c.engine);
  };
  dnnl::concat::primitive_desc pd;
  try {
    pd = make_pd(true);
    if (is_reference_impl(impl_name(pd)))
      pd = make_pd(false);
  } catch (const dnnl::error &) {
    pd = make_pd(false);
  }
  (void)out;
  Lowered l;
  for (size_t i = 0; i < in.size(); ++i)
    l.in.push_back(pd.src_desc(static_cast<int>(i)));
  l.out = {pd.dst_desc()};
  l.impl = impl_name(pd);
  l.bind = [&c, pd, count = in.size()](const Bound &b) {
    Args args;
    for (size_t i = 0; i < count; ++i)
      args.emplace(DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i),
                   memory(pd.src_desc(static_cast<int>(i)), c.engine, b.in[i]));
    args.emplace(DNNL_ARG_DST, memory(pd.dst_desc(), c.engine, b.out[0]));
    return primitive_step(c, dnnl::concat(pd), std::move(args));
  };
  return l;
}

Lowered CpuKernel<ops::Transpose>::make(Context &c, const Node &n,
                                        CpuOperands in, ResultTypes out,
                                        PostOps) {
  // The result is the operand read through permuted strides: the
  // operand's own when its layout has one stride per axis (nhwc), else
  // its row-major ones.
  const auto &perm = n.attrs.list(ops::Transpose::kPerm);
  const std::optional<dims> dense = dense_strides(in[0].md);
  const memory::desc operand_md = dense ? in[0].md : plain_md(in[0].shape());
  const dims in_strides = dense ? *dense : dims(in[0].shape().strides());
  dims strides;
  for (int64_t p : perm)
    strides.push_back(in_strides[p]);
  const dims out_dims = to_dims(out[0].shape);
  if (strides.empty())
    strides = {1};
  const memory::desc src(out_dims, kF32, strides);
  // Seen so, the result is in a layout kernels know (row-major, nhwc):
  // a view, no step (NHWC to NCHW and back around a channels-last norm).
  if (is_plain(src) || activation_tag(src))
    return view_of_operand(operand_md, src);
  const auto dst = plain_md(out_dims);
  const dnnl::reorder::primitive_desc pd(c.engine, src, c.engine, dst);
  Lowered l;
  l.in = {operand_md};
  l.out = {dst};
  l.impl = impl_name(pd);
  l.bind = [&c, pd, src, dst](const Bound &b) {
    return primitive_step(c, dnnl::reorder(pd),
                          {{DNNL_ARG_FROM, memory(src, c.engine, b.in[0])},
                           {DNNL_ARG_TO, memory(dst, c.engine, b.out[0])}});
  };
  return l;
}

Lowered CpuKernel<ops::Softmax>::make(Context &c, const Node &n, CpuOperands in,
                                      ResultTypes, PostOps) {
  const Shape &x = in[0].shape();
  const int axis = ops::normalize_axis(
      ops::Softmax::name, n.attrs.i(ops::Softmax::kAxis), x.rank());
  if (axis != x.rank() - 1 || x.dims.back() <= kShortSoftmaxAxis)
    return softmax_lines(c, x, axis);
  const auto md = plain_md(x);
  const dnnl::softmax_forward::desc d(dnnl::prop_kind::forward_inference, md,
                                      axis);
  const dnnl::softmax_forward::primitive_desc pd(d, c.engine);
  Lowered l;
  l.in = {md};
  l.out = {md};
  l.impl = impl_name(pd);
  l.bind = [&c, pd, md](const Bound &b) {
    return primitive_step(c, dnnl::softmax_forward(pd),
                          {{DNNL_ARG_SRC, memory(md, c.engine, b.in[0])},
                           {DNNL_ARG_DST, memory(md, c.engine, b.out[0])}});
  };
  return l;
}

std::vector<dnnl::memory::desc> plain_mds(CpuOperands in) {
  std::vector<dnnl::memory::desc> mds;
  for (const CpuOperand &o : in)
    mds.push_back(plain_md(o.shape()));
  return mds;
}

std::vector<dnnl::memory::desc> plain_mds(ResultTypes out) {
  std::vector<dnnl::memory::desc> mds;
  for (const TensorType &t : out)
    mds.push_back(plain_md(t.shape));
  return mds;
}

} // namespace quarry::runtime::cpu
