//===- kernels_conv.cc - cpu convolutions through oneDNN ------------------===//
//
// A convolution runs as oneDNN's convolution primitive, directly or by
// Winograd as the node asks, or, for a 1x1 window at stride 1, as oneDNN's
// matrix product over the channels-last pixels: the same bytes in and out,
// and on some shapes a faster kernel than the 1x1 convolution's. Whichever
// runs, a batchnorm after it is folded into its weights and bias, and the
// rest of its chain is its epilogue (epilogue.h).
//
//===----------------------------------------------------------------------===//
#include "conv_algorithms.h"
#include "epilogue.h"
#include "gemv.h"
#include "kernels.h"
#include "primitive_step.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <vector>

namespace quarry::runtime::cpu {

using dnnl::memory;
using tag = dnnl::memory::format_tag;
constexpr auto kF32 = dnnl::memory::data_type::f32;

namespace {

/// The convolution as oneDNN's matmul [n*h*w, c] x [c, co]: its input and
/// result in nhwc are those matrices row-major, its weights [co, c] the
/// second one transposed. Operand 1 holds the (possibly folded) weights,
/// `bias` the folded bias when there is one (else operand 2), and
/// post[first..] the epilogue. nullopt where the bytes would not be the
/// same: bfloat16 products, a layout forced on convolutions other than
/// nhwc, a full-size epilogue operand that is static (plain, not nhwc) or
/// of another shape than the result.
std::optional<Lowered>
conv_as_matmul(Context &c, const ops::Conv2D::Geometry &g,
               const std::vector<int64_t> &s, CpuOperands in, ResultTypes out,
               PostOps post, size_t first, bool has_bias,
               const std::shared_ptr<std::vector<float>> &bias,
               const std::optional<tag> &layout) {
  if (!is_pixel_product(g, s) || c.bf16 || (layout && *layout != tag::nhwc) ||
      out[0].shape.rank() != 4)
    return std::nullopt;
  const int64_t floats = out[0].shape.numel();
  for (size_t i = 2; i < in.size(); ++i)
    if (in[i].shape().numel() == floats && floats != g.co &&
        (in[i].is_static() || in[i].shape() != out[0].shape))
      return std::nullopt;
  const int64_t m = g.n * g.h * g.w;
  const memory::desc amd = plain_md(dims{m, g.c}),
                     cmd = plain_md(dims{m, g.co});
  // Static weights are transposed once and laid out as oneDNN prefers;
  // computed ones are read transposed where they lie.
  const memory::desc bplain({g.c, g.co}, kF32, tag::ba);
  std::vector<float> transposed;
  std::vector<CpuOperand> operands(in.begin(), in.end());
  if (in[1].is_static()) {
    transposed.resize(static_cast<size_t>(g.c * g.co));
    for (int64_t o = 0; o < g.co; ++o)
      for (int64_t i = 0; i < g.c; ++i)
        transposed[i * g.co + o] = in[1].static_data[o * g.c + i];
    operands[1].static_data = transposed.data();
  }
  const memory::desc bmd =
      in[1].is_static() ? memory::desc({g.c, g.co}, kF32, tag::any) : bplain;
  const memory::desc bias_md =
      has_bias ? plain_md(dims{1, g.co}) : memory::desc();
  const Epilogue epi(post, first, 2, dims{m, g.co}, 1);
  const dnnl::matmul::primitive_desc pd(
      dnnl::matmul::desc(amd, bmd, bias_md, cmd), epi.attr(), c.engine);
  Lowered l;
  const AnchorParts parts = anchor_parts(c, pd, epi, operands, l);
  // The matrices' bytes are the tensors' in nhwc: so the input, the
  // result and every full-size operand (a residual) are asked for in it.
  const auto nhwc = [](const Shape &t) {
    return memory::desc(to_dims(t), kF32, tag::nhwc);
  };
  l.in[0] = nhwc(in[0].shape());
  for (size_t i = 2; i < in.size(); ++i)
    if (!in[i].is_static() && in[i].shape() == out[0].shape)
      l.in[i] = nhwc(in[i].shape());
  l.out = {nhwc(out[0].shape)};
  l.impl = "matmul " + l.impl;
  const memory::desc bias_of = has_bias ? pd.bias_desc() : memory::desc();
  l.bind = [&c, pd, amd, bplain, cmd, bias_of, bias, parts](const Bound &b) {
    return anchor_step(c, dnnl::matmul(pd), parts, b, amd, bplain, cmd, bias_of,
                       bias ? bias->data() : nullptr);
  };
  return l;
}

} // namespace

Lowered CpuKernel<ops::Conv2D>::make(Context &c, const Node &n, CpuOperands in,
                                     ResultTypes out, PostOps post) {
  if (auto point = point_conv_lowered(c, n, in, out, post))
    return std::move(*point);
  if (auto int8 = int8_conv_lowered(c, n, in, out, post))
    return std::move(*int8);
  using Conv = ops::Conv2D;
  const auto g = Conv::geometry(n.attrs, in[0].shape(), in[1].shape());
  const auto &s = n.attrs.list(Conv::kStride);
  const std::optional<tag> layout = forced_layout(c.conv_layout, n);
  // Weights [co, c/g, kh, kw] are, byte for byte, goihw with g groups.
  const dims wdims = g.groups > 1
                         ? dims{g.groups, g.co / g.groups, g.cw, g.kh, g.kw}
                         : dims{g.co, g.cw, g.kh, g.kw};
  const auto wplain = plain_md(wdims);
  const dims ydims = to_dims(out[0].shape);
  // A leading per-channel add of static values is the convolution's bias.
  const bool own_bias = !post.empty() && post[0].kind == PostOp::Kind::Binary &&
                        post[0].binary == ops::BroadcastFn::Add &&
                        post[0].spread == Spread::PerChannel &&
                        post[0].operand_static;
  // A batchnorm after it (fusion.h) is folded into weights and bias.
  const size_t bn = own_bias ? 1 : 0;
  const bool folds =
      post.size() > bn && post[bn].kind == PostOp::Kind::BatchNorm;
  std::vector<float> folded_weights;
  std::shared_ptr<std::vector<float>> folded_bias;
  std::vector<CpuOperand> operands(in.begin(), in.end());
  if (folds) {
    const int at = 2 + static_cast<int>(bn); // gamma, beta, mean, var
    const float *gamma = in[at].static_data, *beta = in[at + 1].static_data,
                *mean = in[at + 2].static_data, *var = in[at + 3].static_data;
    const int64_t per_co = g.cw * g.kh * g.kw;
    folded_weights.assign(in[1].static_data, in[1].static_data + g.co * per_co);
    folded_bias = std::make_shared<std::vector<float>>(g.co);
    for (int64_t o = 0; o < g.co; ++o) {
      // As the reference computes a batchnorm: gamma / sqrt(var + eps).
      const float scale =
          gamma[o] *
          (1.0f / std::sqrt(var[o] + static_cast<float>(post[bn].eps)));
      for (int64_t i = 0; i < per_co; ++i)
        folded_weights[o * per_co + i] *= scale;
      const float b = own_bias ? in[2].static_data[o] : 0.0f;
      (*folded_bias)[o] = (b - mean[o]) * scale + beta[o];
    }
    operands[1].static_data = folded_weights.data();
  }
  in = operands;
  const bool has_bias = own_bias || folds;
  if (Conv::algorithm(n.attrs) == ops::ConvAlgorithm::Matmul)
    if (auto product =
            conv_as_matmul(c, g, s, in, out, post, folds ? bn + 1 : bn,
                           has_bias, folded_bias, layout))
      return std::move(*product);
  const Epilogue epi(post, folds ? bn + 1 : bn, 2, ydims, 1);
  const memory::desc bias_md = has_bias ? plain_md(dims{g.co}) : memory::desc();
  // Static weights are laid out once, here, as oneDNN prefers; in bf16
  // mode as bfloat16, and the input converted by a reorder.
  const bool bf16 = c.bf16 && in[1].is_static();
  const memory::data_type src_type = bf16 ? memory::data_type::bf16 : kF32;
  const memory::desc wmd =
      in[1].is_static() ? memory::desc(wdims, src_type, tag::any) : wplain;
  auto make_pd = [&](const memory::desc &src, const memory::desc &dst,
                     dnnl::algorithm algorithm) {
    // oneDNN counts dilation from 0 (adjacent taps).
    const dnnl::convolution_forward::desc d(
        dnnl::prop_kind::forward_inference, algorithm, src, wmd, bias_md, dst,
        {s[0], s[1]}, {g.dh - 1, g.dw - 1}, {g.y.pad_before, g.x.pad_before},
        {pad_after(g.h, g.eh, s[0], g.y.out, g.y.pad_before),
         pad_after(g.w, g.ew, s[1], g.x.out, g.x.pad_before)});
    return dnnl::convolution_forward::primitive_desc(d, epi.attr(), c.engine);
  };
  // Keep the layout the input arrives in (blocked or channels-last), so a
  // network runs in one layout without reorders, unless it left the
  // network's; oneDNN chooses only where that layout has no fast kernel,
  // and for plain inputs. Winograd, where
  // the node asks for it, takes the layout its kernel needs, with reorders
  // around it; where oneDNN has none for this configuration (its post-ops,
  // bf16, another CPU than the one that chose it) the direct one runs.
  std::optional<dnnl::convolution_forward::primitive_desc> chosen;
  const dims xdims = to_dims(in[0].shape());
  const auto direct = [&](const memory::desc &src, const memory::desc &dst) {
    return make_pd(src, dst, dnnl::algorithm::convolution_direct);
  };
  if (Conv::algorithm(n.attrs) == ops::ConvAlgorithm::Winograd) {
    try {
      auto pd = make_pd(memory::desc(xdims, src_type, tag::any),
                        memory::desc(ydims, kF32, tag::any),
                        dnnl::algorithm::convolution_winograd);
      if (!is_reference_impl(impl_name(pd)))
        chosen = pd;
    } catch (const dnnl::error &) {
    }
  }
  if (!chosen && layout) {
    chosen = direct(memory::desc(xdims, src_type, *layout),
                    memory::desc(ydims, kF32, *layout));
    // Input channels that fill no block (an image's 3) have no kernel
    // that reads them blocked: oneDNN's reads them plain and writes the
    // forced layout, where forcing both ran its reference code.
    if (is_reference_impl(impl_name(*chosen)))
      chosen = direct(memory::desc(xdims, src_type, tag::any),
                      memory::desc(ydims, kF32, *layout));
    // Groups whose channels fill no block (ResNeXt-50's of 4 and 8) have
    // no kernel in a blocked layout at all: oneDNN's choice runs, with
    // reorders around it, rather than its reference code.
    if (is_reference_impl(impl_name(*chosen)))
      chosen.reset();
  } else if (const auto t = activation_tag(in[0].md);
             !chosen && t && !is_plain(in[0].md)) {
    // Back to the network's layout from another one (a Winograd kernel's).
    const auto keep = c.activations ? *c.activations : *t;
    try {
      auto pd = direct(bf16 || keep != *t ? memory::desc(xdims, src_type, keep)
                                          : in[0].md,
                       memory::desc(ydims, kF32, keep));
      if (!is_reference_impl(impl_name(pd)))
        chosen = pd;
    } catch (const dnnl::error &) {
    }
  }
  if (!chosen)
    chosen = direct(memory::desc(xdims, src_type, tag::any),
                    memory::desc(ydims, kF32, tag::any));
  const auto pd = *chosen;
  Lowered l;
  const AnchorParts parts = anchor_parts(c, pd, epi, in, l);
  l.in[0] = pd.src_desc();
  l.out = {pd.dst_desc()};
  const memory::desc bias_of = has_bias ? pd.bias_desc() : memory::desc();
  l.bind = [&c, pd, parts, wplain, bias_of, folded_bias](const Bound &b) {
    return anchor_step(c, dnnl::convolution_forward(pd), parts, b,
                       pd.src_desc(), wplain, pd.dst_desc(), bias_of,
                       folded_bias ? folded_bias->data() : nullptr);
  };
  return l;
}

} // namespace quarry::runtime::cpu
