//===- epilogue.cc - Post-op lists as oneDNN post-ops ---------------------===//
#include "epilogue.h"

#include "pointwise_loops.h"

namespace quarry::runtime::cpu {

namespace {

/// Whether post[k] is the last post-op that computes anything.
bool last_computed(PostOps post, size_t k) {
  for (size_t j = k + 1; j < post.size(); ++j)
    if (post[j].kind != PostOp::Kind::View)
      return false;
  return true;
}

} // namespace

Epilogue::Epilogue(PostOps post, size_t first, int first_operand,
                   const dims &result, int channel_axis) {
  int operand = first_operand;
  for (size_t k = 0; k < post.size(); ++k) {
    const PostOp &p = post[k];
    if (p.kind == PostOp::Kind::View)
      continue; // the same bytes: nothing to compute
    if (p.kind == PostOp::Kind::BatchNorm) {
      // Folded into the weights: only before `first`.
      operand += static_cast<int>(p.statics.size());
      continue;
    }
    if (p.kind == PostOp::Kind::Unary) {
      if (k >= first)
        ops_.append_eltwise(1.0f, eltwise_algorithm(p.unary), 0.0f, 0.0f);
      continue;
    }
    if (p.kind == PostOp::Kind::Pointwise) {
      if (k >= first && p.pointwise == ops::PointwiseFn::Silu &&
          last_computed(post, k)) {
        silu_after_ = true;
        continue;
      }
      // The fusion policy admits only functions with an algorithm.
      const auto [alg, alpha, beta] =
          pointwise_algorithm(p.pointwise, p.alpha, p.beta).value();
      if (k >= first)
        ops_.append_eltwise(1.0f, alg, alpha, beta);
      continue;
    }
    const int this_operand = operand++;
    if (k < first)
      continue;
    if (p.accumulate && p.binary == ops::BroadcastFn::Add &&
        p.spread == Spread::Full && accumulated_ < 0) {
      // dst = (what came before) + dst: the result's buffer holds the
      // operand when the primitive starts (program.cc arranges it).
      ops_.append_sum(1.0f);
      accumulated_ = this_operand;
      continue;
    }
    dnnl::memory::desc md;
    if (p.spread == Spread::Full) {
      md = dnnl::memory::desc(result, dnnl::memory::data_type::f32,
                              dnnl::memory::format_tag::any);
    } else {
      dims d(result.size(), 1);
      if (p.spread == Spread::PerChannel)
        d[channel_axis] = result[channel_axis];
      md = plain_md(d);
    }
    src1_.push_back({this_operand, ops_.len(), md, {}});
    ops_.append_binary(binary_algorithm(p.binary), md);
  }
}

dnnl::primitive_attr Epilogue::attr() const {
  dnnl::primitive_attr a;
  if (ops_.len() > 0)
    a.set_post_ops(ops_);
  return a;
}

void Epilogue::wanted_layouts(CpuOperands in, const dnnl::memory::desc &dst,
                              std::vector<dnnl::memory::desc> &wanted) const {
  // A blocked (full) operand has the result's own dims (fusion.h); plain
  // ones hold the same floats as the operand's row-major form.
  for (const Src1 &s : src1_)
    wanted[s.operand] = is_plain(s.md) ? plain_md(in[s.operand].shape()) : s.md;
  if (accumulated_ >= 0)
    wanted[accumulated_] =
        is_plain(dst) ? plain_md(in[accumulated_].shape()) : dst;
}

void Epilogue::bind(const Context &c, const Bound &b, Args &args) const {
  for (const Src1 &s : src1_) {
    if (s.laid_out)
      args.emplace(arg(s), s.laid_out);
    else
      args.emplace(arg(s), dnnl::memory(s.md, c.engine, b.in[s.operand]));
  }
}

Step Epilogue::finish(Step primitive, const Bound &b, int64_t floats) const {
  if (!silu_after_)
    return primitive;
  return [primitive = std::move(primitive), y = b.out[0], floats] {
    primitive();
    pointwise_loop(ops::PointwiseFn::Silu, 0.0f, 0.0f, y, y, floats);
  };
}

std::string Epilogue::describe(PostOps post) {
  std::string s;
  for (const PostOp &p : post)
    s += " +" + p.str();
  return s;
}

} // namespace quarry::runtime::cpu
