//===- primitive_step.h - Lowerings shared by the oneDNN kernels -*- C++
//-*-===//
#pragma once

#include "epilogue.h"
#include "kernels.h"

#include <memory>
#include <optional>

namespace quarry::runtime::cpu {

/// The step that executes `p` on `args` (memories over bound buffers).
inline Step primitive_step(const Context &c, dnnl::primitive p, Args args) {
  return [p = std::move(p), args = std::move(args), s = c.stream]() mutable {
    p.execute(s, args);
  };
}

/// The epilogue of primitive `pd` with its operands resolved: their
/// layouts into l.in (plain for the rest), and l's accumulated operand and
/// implementation name.
template <class Pd>
std::shared_ptr<const Epilogue> resolved_epilogue(Context &c, const Pd &pd,
                                                  const Epilogue &epi,
                                                  CpuOperands in, Lowered &l) {
  auto resolved = std::make_shared<Epilogue>(epi);
  resolved->resolve(pd, c, in);
  l.in = plain_mds(in);
  resolved->wanted_layouts(in, pd.dst_desc(), l.in);
  l.accumulate = resolved->accumulated();
  l.impl = impl_name(pd);
  return resolved;
}

/// The step that executes `p` on `args` (its source, weights and result
/// bound already) with `epilogue`'s operands, writing `dst`; then what the
/// epilogue leaves to quarry's own loop over the result.
inline Step epilogue_step(const Context &c, dnnl::primitive p,
                          const Epilogue &epilogue, const Bound &b, Args args,
                          const dnnl::memory::desc &dst) {
  epilogue.bind(c, b, args);
  return epilogue.finish(primitive_step(c, std::move(p), std::move(args)), b,
                         static_cast<int64_t>(dst.get_size() / sizeof(float)));
}

/// What a convolution or matmul needs once its primitive exists: the
/// epilogue resolved (resolved_epilogue) and static weights (operand 1)
/// laid out as the primitive wants.
struct AnchorParts {
  std::shared_ptr<const Epilogue> epilogue;
  dnnl::memory weights; ///< empty when operand 1 is not static
};

template <class Pd>
AnchorParts anchor_parts(Context &c, const Pd &pd, const Epilogue &epi,
                         CpuOperands in, Lowered &l) {
  AnchorParts parts{resolved_epilogue(c, pd, epi, in, l), {}};
  if (in[1].is_static()) {
    parts.weights = laid_out_copy(c.engine, c.stream, c.statics,
                                  pd.weights_desc(), in[1].static_data);
    l.copied_static.push_back(1);
  }
  return parts;
}

/// An anchor's step over `b`: `primitive` reading operand 0 as `src`, its
/// weights (laid out once, else operand 1 as `weights`), a bias where
/// `bias` describes one (`bias_data`, else operand 2) and the epilogue's
/// operands, writing `dst` (epilogue_step).
inline Step anchor_step(const Context &c, dnnl::primitive primitive,
                        const AnchorParts &parts, const Bound &b,
                        const dnnl::memory::desc &src,
                        const dnnl::memory::desc &weights,
                        const dnnl::memory::desc &dst,
                        const dnnl::memory::desc &bias = {},
                        const float *bias_data = nullptr) {
  using dnnl::memory;
  Args args{{DNNL_ARG_SRC, memory(src, c.engine, b.in[0])},
            {DNNL_ARG_WEIGHTS, parts.weights
                                   ? parts.weights
                                   : memory(weights, c.engine, b.in[1])},
            {DNNL_ARG_DST, memory(dst, c.engine, b.out[0])}};
  if (!bias.is_zero())
    args.emplace(DNNL_ARG_BIAS,
                 memory(bias, c.engine,
                        const_cast<float *>(bias_data ? bias_data : b.in[2])));
  return epilogue_step(c, std::move(primitive), *parts.epilogue, b,
                       std::move(args), dst);
}

/// An elementwise function of operand 0, in the layout it has.
Lowered eltwise_lowered(Context &c, dnnl::algorithm alg, float alpha,
                        float beta, CpuOperands in);

/// A oneDNN binary with operand `src0` as its first source (which has the
/// result's shape, in its own layout) and the other broadcast over it.
Lowered binary_lowered(Context &c, dnnl::algorithm alg, CpuOperands in,
                       int src0, const Shape &out_shape);

/// A split along `axis` that keeps operand 0's layout (channels-last or
/// blocked): each result is a oneDNN reorder from its part of the operand,
/// seen through a sub-memory view, into a dense tensor of the same layout.
/// nullopt when the operand is plain (row-major loops do that best) or the
/// parts do not fall on the layout's blocks.
std::optional<Lowered> split_in_layout(Context &c, int axis, CpuOperands in,
                                       ResultTypes out);

/// A pooling primitive over operand 0.
Lowered pooling_lowered(Context &c,
                        const dnnl::pooling_forward::primitive_desc &pd);
Lowered pooling_lowered(Context &c,
                        const dnnl::pooling_v2_forward::primitive_desc &pd);

} // namespace quarry::runtime::cpu
