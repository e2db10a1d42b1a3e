//===- epilogue.h - Post-ops of a fused convolution or matmul --*- C++ -*-===//
//
// Turns an anchor's post-op list (fusion.h) into oneDNN post-ops. Binary
// operands are described in the result's dimensions as oneDNN reads them:
// a scalar as all-ones dims, per-channel as ones but the channel axis, and
// a full tensor with format `any`, which oneDNN resolves to the result's
// own layout (queried back with resolve()).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kernels.h"

#include <vector>

namespace quarry::runtime::cpu {

class Epilogue {
public:
  /// Post-ops `post[first..]` of an anchor whose result has `result` dims
  /// (as the primitive sees them) with channels on `channel_axis`. The k-th
  /// binary post-op of `post` reads operand `first_operand + k`.
  Epilogue(PostOps post, size_t first, int first_operand, const dims &result,
           int channel_axis);

  const dnnl::post_ops &ops() const { return ops_; }
  dnnl::primitive_attr attr() const;

  /// After the primitive descriptor exists: each binary operand's layout
  /// as the primitive reads it. Static full operands are laid out once.
  template <class Pd> void resolve(const Pd &pd, Context &c, CpuOperands in) {
    for (Src1 &s : src1_) {
      s.md = pd.query_md(dnnl::query::exec_arg_md, arg(s));
      if (in[s.operand].is_static() && !(s.md == plain_md(s.md.dims())))
        s.laid_out = laid_out_copy(c.engine, c.stream, c.statics, s.md,
                                   in[s.operand].static_data);
    }
  }

  /// The layout each binary operand must be in, in the operand's own dims:
  /// the resolved one for full operands, else plain; the accumulated
  /// operand in the result's layout `dst`.
  void wanted_layouts(CpuOperands in, const dnnl::memory::desc &dst,
                      std::vector<dnnl::memory::desc> &wanted) const;

  /// The operand whose buffer the result is computed into (a sum post-op),
  /// or -1.
  int accumulated() const { return accumulated_; }

  /// The binary operands' memories over the bound buffers, added to `args`.
  void bind(const Context &c, const Bound &b, Args &args) const;

  /// `primitive` (the anchor's step, over `b`) followed by what this
  /// epilogue leaves to quarry's own loop over the result's `floats` (its
  /// whole buffer, a blocked layout's padding included): a trailing SiLU,
  /// which oneDNN's post-op computes slower than convolution then a
  /// vectorized pass (it divides, and spills the accumulators it needs).
  Step finish(Step primitive, const Bound &b, int64_t floats) const;

  /// " +add(full) +relu" for reports.
  static std::string describe(PostOps post);

private:
  struct Src1 {
    int operand = 0;    ///< index into the kernel's operands
    int post_index = 0; ///< index among oneDNN's post-ops
    dnnl::memory::desc md;
    dnnl::memory laid_out; ///< static full operands in the primitive's layout
  };
  static int arg(const Src1 &s) {
    return DNNL_ARG_ATTR_MULTIPLE_POST_OP(s.post_index) | DNNL_ARG_SRC_1;
  }
  dnnl::post_ops ops_;
  std::vector<Src1> src1_;
  int accumulated_ = -1;
  bool silu_after_ = false;
};

} // namespace quarry::runtime::cpu
