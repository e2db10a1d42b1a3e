//===- dnnl_util.cc - Layout names and algorithm tables -------------------===//
#include "dnnl_util.h"

#include <cstring>
#include <utility>

namespace quarry::runtime::cpu {

using tag = dnnl::memory::format_tag;

namespace {
const std::pair<tag, const char *> kNamed[] = {
    {tag::nchw, "nchw"},     {tag::nhwc, "nhwc"},     {tag::nChw16c, "nChw16c"},
    {tag::nChw8c, "nChw8c"}, {tag::nChw4c, "nChw4c"}, {tag::chwn, "chwn"}};
} // namespace

std::optional<tag> activation_tag(const dnnl::memory::desc &md) {
  const dims d = md.dims();
  if (d.size() == 4)
    for (const auto &[t, name] : kNamed)
      if (md == dnnl::memory::desc(d, dnnl::memory::data_type::f32, t))
        return t;
  return std::nullopt;
}

int64_t channel_block(tag layout) {
  switch (layout) {
  case tag::nChw16c:
    return 16;
  case tag::nChw8c:
    return 8;
  case tag::nChw4c:
    return 4;
  default:
    return 1;
  }
}

std::optional<std::tuple<dnnl::algorithm, float, float>>
pointwise_algorithm(ops::PointwiseFn fn, float alpha, float beta) {
  using A = dnnl::algorithm;
  using F = ops::PointwiseFn;
  switch (fn) {
  case F::Sqrt:
    return std::tuple{A::eltwise_sqrt, 0.0f, 0.0f};
  case F::Exp:
    return std::tuple{A::eltwise_exp, 0.0f, 0.0f};
  case F::Neg:
    return std::tuple{A::eltwise_linear, -1.0f, 0.0f};
  case F::Abs:
    return std::tuple{A::eltwise_abs, 0.0f, 0.0f};
  case F::Reciprocal:
    return std::tuple{A::eltwise_pow, 1.0f, -1.0f};
  case F::LeakyRelu:
    return std::tuple{A::eltwise_relu, alpha, 0.0f};
  case F::Clip:
    return std::tuple{A::eltwise_clip_v2, alpha, beta};
  case F::HardSwish:
    return std::tuple{A::eltwise_hardswish, 0.0f, 0.0f};
  case F::Elu:
    return std::tuple{A::eltwise_elu, alpha, 0.0f};
  case F::Gelu:
    return std::tuple{A::eltwise_gelu_erf, 0.0f, 0.0f};
  case F::Silu:
    return std::tuple{A::eltwise_swish, 1.0f, 0.0f};
  case F::Round: // halves to even, as core's: a quantization's rounding
                 // runs in the epilogue of the operator before it
    return std::tuple{A::eltwise_round, 0.0f, 0.0f};
  default: // the rest run as loops (pointwise_loops.h): oneDNN has no
           // algorithm for them, or one that is not exact (log at 1)
    break;
  }
  return std::nullopt;
}

std::optional<dims> dense_strides(const dnnl::memory::desc &md) {
  const dnnl_memory_desc_t &d = md.data;
  if (d.format_kind != dnnl_blocked ||
      d.format_desc.blocking.inner_nblks != 0 || d.offset0 != 0)
    return std::nullopt;
  for (int i = 0; i < d.ndims; ++i)
    if (d.padded_dims[i] != d.dims[i] || d.padded_offsets[i] != 0)
      return std::nullopt;
  return dims(d.format_desc.blocking.strides,
              d.format_desc.blocking.strides + d.ndims);
}

std::optional<tag> activation_tag(const std::string &name) {
  for (const auto &[t, named] : kNamed)
    if (name == named)
      return t;
  return std::nullopt;
}

std::string layout_name(tag t) {
  for (const auto &[named, name] : kNamed)
    if (named == t)
      return name;
  return "blocked";
}

std::string layout_name(const dnnl::memory::desc &md) {
  if (auto t = activation_tag(md))
    return layout_name(*t);
  return is_plain(md) ? "plain" : "blocked";
}

dnnl::algorithm eltwise_algorithm(UnaryFn f) {
  switch (f) {
  case UnaryFn::Relu:
    return dnnl::algorithm::eltwise_relu;
  case UnaryFn::Sigmoid:
    return dnnl::algorithm::eltwise_logistic;
  case UnaryFn::Tanh:
    return dnnl::algorithm::eltwise_tanh;
  case UnaryFn::InvSqrt:
    break;
  }
  return dnnl::algorithm::eltwise_pow; // x^-0.5 with alpha 1, beta -0.5
}

dnnl::algorithm binary_algorithm(ops::BroadcastFn f) {
  switch (f) {
  case ops::BroadcastFn::Add:
    return dnnl::algorithm::binary_add;
  case ops::BroadcastFn::Sub:
    return dnnl::algorithm::binary_sub;
  case ops::BroadcastFn::Mul:
    return dnnl::algorithm::binary_mul;
  case ops::BroadcastFn::Div:
    return dnnl::algorithm::binary_div;
  case ops::BroadcastFn::Max:
    return dnnl::algorithm::binary_max;
  case ops::BroadcastFn::Min:
    return dnnl::algorithm::binary_min;
  default: // pow, and the comparisons (kernels_float_only.cc)
    break;
  }
  throw dnnl::error(dnnl_unimplemented,
                    "this function has no oneDNN binary algorithm here");
}

dnnl::memory laid_out_copy(const dnnl::engine &engine, dnnl::stream &stream,
                           StaticArena &arena, const dnnl::memory::desc &md,
                           const float *src) {
  dnnl::memory out(md, engine, arena.allocate(md.get_size()));
  const auto plain = plain_md(md.dims());
  dnnl::memory from(plain, engine, const_cast<float *>(src));
  if (md == plain) {
    std::memcpy(out.get_data_handle(), src, plain.get_size());
    return out;
  }
  dnnl::reorder(from, out).execute(stream, from, out);
  stream.wait();
  return out;
}

} // namespace quarry::runtime::cpu
