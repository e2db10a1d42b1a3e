//===- gemv.cc - Streaming row-vector-matrix products ---------------------===//
#include "gemv.h"

#include "clones.h"

#include "quarry/core/float_domain.h"
#include "quarry/core/ops/broadcast.h"
#include "quarry/core/ops/conv2d.h"
#include "quarry/core/sanitizers.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

namespace quarry::runtime::cpu {

namespace {

/// The weights are packed into panels of kPanel columns, each panel its k
/// rows of kPanel floats front to back, so that a panel's sums stay in
/// registers while its weights stream past once. Read row by row, a
/// product loads and stores its row of sums for every vector of weights,
/// and those accesses crowd out the loads that keep the stream of weights
/// from memory going.
constexpr int64_t kPanel = 32;

/// y[0..kPanel) = x . P for one panel P [k, kPanel]. The four quarters of
/// the rows are read at once: four streams keep more of the memory's
/// requests in flight than one, which matters most for wide products,
/// whose panels are long.
QUARRY_CPU_CLONES void panel_product(const float *x, const float *panel,
                                     float *y, int64_t k) {
  const int64_t q = k / 4;
  float a0[kPanel] = {}, a1[kPanel] = {}, a2[kPanel] = {}, a3[kPanel] = {};
  const float *r0 = panel, *r1 = r0 + q * kPanel, *r2 = r1 + q * kPanel,
              *r3 = r2 + q * kPanel;
  for (int64_t i = 0; i < q; ++i) {
    const float x0 = x[i], x1 = x[q + i], x2 = x[2 * q + i], x3 = x[3 * q + i];
    const int64_t at = i * kPanel;
#pragma omp simd
    for (int64_t j = 0; j < kPanel; ++j) {
      a0[j] += x0 * r0[at + j];
      a1[j] += x1 * r1[at + j];
      a2[j] += x2 * r2[at + j];
      a3[j] += x3 * r3[at + j];
    }
  }
  for (int64_t i = 4 * q; i < k; ++i) {
    const float xi = x[i];
#pragma omp simd
    for (int64_t j = 0; j < kPanel; ++j)
      a0[j] += xi * panel[i * kPanel + j];
  }
  for (int64_t j = 0; j < kPanel; ++j)
    y[j] = (a0[j] + a1[j]) + (a2[j] + a3[j]);
}

/// y[0..r) = x . S for the last r < kPanel columns, packed as S [k, r].
QUARRY_CPU_CLONES void strip_product(const float *x, const float *strip,
                                     float *y, int64_t k, int64_t r) {
  for (int64_t c = 0; c < r; ++c)
    y[c] = 0.0f;
  for (int64_t i = 0; i < k; ++i) {
    const float xi = x[i];
#pragma omp simd
    for (int64_t c = 0; c < r; ++c)
      y[c] += xi * strip[i * r + c];
  }
}

/// Row-major W [k, n] as panels (whole ones first, then the strip of the
/// columns left over), in memory from `arena` (aligned to cache lines).
const float *pack_panels(StaticArena &arena, const float *w, int64_t k,
                         int64_t n) {
  auto *packed = static_cast<float *>(
      arena.allocate(sizeof(float) * static_cast<size_t>(k * n)));
  float *out = packed;
  for (int64_t c0 = 0; c0 < n; c0 += kPanel) {
    const int64_t width = std::min(kPanel, n - c0);
    for (int64_t i = 0; i < k; ++i, out += width)
      std::memcpy(out, w + i * n + c0, sizeof(float) * width);
  }
  return packed;
}

/// y[c0..c1) for panel-aligned c0 (c1 a panel's end or n).
void panel_columns(const float *x, const float *packed, float *y, int64_t k,
                   int64_t n, int64_t c0, int64_t c1) {
  for (int64_t c = c0; c < c1; c += kPanel) {
    const float *panel = packed + c * k;
    if (n - c >= kPanel)
      panel_product(x, panel, y + c, k);
    else
      strip_product(x, panel, y + c, k, n - c);
  }
}

/// One post-op with its operand's position among the step's operands.
struct BoundPostOp {
  PostOp op;
  int operand = -1;
};

/// `post` with each binary post-op's operand among the step's operands
/// (after the input and the weight).
std::vector<BoundPostOp> bound_post_ops(PostOps post) {
  std::vector<BoundPostOp> bound;
  int operand = 2;
  for (const PostOp &p : post)
    bound.push_back({p, p.kind == PostOp::Kind::Binary ? operand++ : -1});
  return bound;
}

/// Applies the epilogue to y[c0..c1). A per-channel or full operand of a
/// one-row result holds one value per column; a scalar one value.
void apply_epilogue(const std::vector<BoundPostOp> &post,
                    const std::vector<float *> &in, float *y, int64_t c0,
                    int64_t c1) {
  for (const BoundPostOp &p : post) {
    if (p.op.kind == PostOp::Kind::View)
      continue;
    if (p.op.kind == PostOp::Kind::Pointwise) {
      for (int64_t c = c0; c < c1; ++c)
        y[c] =
            ops::pointwise_value(p.op.pointwise, p.op.alpha, p.op.beta, y[c]);
      continue;
    }
    if (p.op.kind == PostOp::Kind::Unary) {
      for (int64_t c = c0; c < c1; ++c)
        y[c] = FloatDomain().unary(p.op.unary, y[c]);
      continue;
    }
    const float *o = in[p.operand];
    const bool scalar = p.op.spread == Spread::Scalar;
    for (int64_t c = c0; c < c1; ++c)
      y[c] = ops::broadcast_value(p.op.binary, y[c], o[scalar ? 0 : c]);
  }
}

/// Below this many weights, threads cost more than they save.
constexpr int64_t kParallelWeights = 1 << 16;

} // namespace

bool gemv_applies(CpuOperands in) {
  const Shape &a = in[0].shape(), &b = in[1].shape();
  return in[1].is_static() && a.rank() == 2 && b.rank() == 2 && a[0] == 1;
}

Lowered gemv_lowered(Context &c, CpuOperands in, ResultTypes out,
                     PostOps post) {
  const int64_t k = in[1].shape()[0], n = in[1].shape()[1];
  const std::vector<BoundPostOp> bound = bound_post_ops(post);
  const float *weights = pack_panels(c.statics, in[1].static_data, k, n);
  Lowered l;
  l.in = plain_mds(in);
  l.out = plain_mds(out);
  l.impl = "gemv";
  l.copied_static = {1};
  // Threads split the panels, each streaming a contiguous part of the
  // packed weights and applying the epilogue to its own columns.
  l.bind = [k, n, bound, weights](const Bound &b) -> Step {
    std::vector<float *> in = b.in;
    in[1] = const_cast<float *>(weights);
    return [k, n, bound, in, y = b.out[0]] {
      const int64_t panels = (n + kPanel - 1) / kPanel;
      const int threads =
          k * n < kParallelWeights
              ? 1
              : static_cast<int>(std::min<int64_t>(
                    panels, std::max(1, omp_get_max_threads())));
      if (threads == 1) {
        panel_columns(in[0], in[1], y, k, n, 0, n);
        apply_epilogue(bound, in, y, 0, n);
        return;
      }
#pragma omp parallel num_threads(threads)
      {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        const int64_t c0 = std::min(n, panels * t / nt * kPanel);
        const int64_t c1 = std::min(n, panels * (t + 1) / nt * kPanel);
        panel_columns(in[0], in[1], y, k, n, c0, c1);
        apply_epilogue(bound, in, y, c0, c1);
      }
    };
  };
  return l;
}

std::optional<Lowered> point_conv_lowered(Context &c, const Node &n,
                                          CpuOperands in, ResultTypes out,
                                          PostOps post) {
  const auto g = ops::Conv2D::geometry(n.attrs, in[0].shape(), in[1].shape());
  const bool covers = g.n == 1 && g.y.out == 1 && g.x.out == 1 &&
                      g.y.pad_before == 0 && g.x.pad_before == 0 && g.dh == 1 &&
                      g.dw == 1 && g.kh == g.h && g.kw == g.w;
  const bool depthwise = g.groups == g.c && g.co == g.c;
  const bool folds = std::any_of(post.begin(), post.end(), [](const auto &p) {
    return p.kind == PostOp::Kind::BatchNorm; // oneDNN's path folds it
  });
  if (!covers || !in[1].is_static() || folds || (g.groups != 1 && !depthwise))
    return std::nullopt;
  const int64_t k = g.cw * g.kh * g.kw; // weights per output channel
  if (g.groups == 1) {
    // x flattened (c, h, w) is one row of k; W [co, k] transposed to [k, co].
    std::vector<float> wt(static_cast<size_t>(k * g.co));
    for (int64_t o = 0; o < g.co; ++o)
      for (int64_t i = 0; i < k; ++i)
        wt[i * g.co + o] = in[1].static_data[o * k + i];
    const TensorType row{Shape{1, k}}, matrix{Shape{k, g.co}},
        result{Shape{1, g.co}};
    std::vector<CpuOperand> as_gemv(in.begin(), in.end());
    as_gemv[0] = {&row, plain_md(row.shape), nullptr, {}};
    as_gemv[1] = {&matrix, plain_md(matrix.shape), wt.data(), {}};
    Lowered l = gemv_lowered(c, as_gemv, std::span(&result, 1), post);
    // Over a 1x1 input every dense layout is the same bytes (a pooled
    // squeeze-excitation input): no reorder.
    l.in[0] = g.h == 1 && g.w == 1 && dense_strides(in[0].md)
                  ? in[0].md
                  : plain_md(in[0].shape());
    l.out = {plain_md(out[0].shape)};
    return l;
  }
  // Depthwise: y[c] = W[c, :] . x[c, :], each channel's k inputs in a row.
  const std::vector<BoundPostOp> bound = bound_post_ops(post);
  auto weights = std::make_shared<std::vector<float>>(
      in[1].static_data, in[1].static_data + k * g.co);
  Lowered l;
  l.in = plain_mds(in);
  l.out = {plain_md(out[0].shape)};
  l.impl = "loops";
  l.copied_static = {1};
  l.bind = [k, c = g.c, bound, weights](const Bound &b) -> Step {
    return [k, c, bound, weights, in = b.in, y = b.out[0]] {
      const float *x = in[0], *w = weights->data();
      for (int64_t ch = 0; ch < c; ++ch) {
        float sum = 0.0f;
        for (int64_t i = 0; i < k; ++i)
          sum += w[ch * k + i] * x[ch * k + i];
        y[ch] = sum;
      }
      apply_epilogue(bound, in, y, 0, c);
    };
  };
  return l;
}

} // namespace quarry::runtime::cpu
