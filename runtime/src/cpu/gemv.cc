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
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace quarry::runtime::cpu {

namespace {

/// y = x[k0..k1) . W[k0..k1, :) for row-major W [k, n]: rows read once,
/// front to back, into accumulators that stay in L1. Built for AVX-512,
/// AVX2 and plain x86-64; the loader picks what the CPU has.
QUARRY_CPU_CLONES void gemv_rows(const float *x, const float *w, float *y,
                                 int64_t k0, int64_t k1, int64_t n) {
  for (int64_t c = 0; c < n; ++c)
    y[c] = 0.0f;
  for (int64_t i = k0; i < k1; ++i) {
    const float xi = x[i];
    const float *row = w + i * n;
#pragma omp simd
    for (int64_t c = 0; c < n; ++c)
      y[c] += xi * row[c];
  }
}

/// gemv_rows for a wide y (16 KiB at n = 4096), which does not stay in L1
/// beside the stream of weights: one pass over it per row made a product
/// with 4096 columns 1.8 times slower per weight than one with 512, and
/// one with 1536 already 1.4 times. Four rows per pass read and write it a
/// quarter as often. Up to 1024 columns they measured no faster than one
/// (bench/runtime_bench, gemv_sweep).
QUARRY_CPU_CLONES void gemv_rows_by_four(const float *x, const float *w,
                                         float *y, int64_t k0, int64_t k1,
                                         int64_t n) {
  for (int64_t c = 0; c < n; ++c)
    y[c] = 0.0f;
  int64_t i = k0;
  for (; i + 4 <= k1; i += 4) {
    const float x0 = x[i], x1 = x[i + 1], x2 = x[i + 2], x3 = x[i + 3];
    const float *r0 = w + i * n, *r1 = r0 + n, *r2 = r1 + n, *r3 = r2 + n;
#pragma omp simd
    for (int64_t c = 0; c < n; ++c)
      y[c] += x0 * r0[c] + x1 * r1[c] + x2 * r2[c] + x3 * r3[c];
  }
  for (; i < k1; ++i) {
    const float xi = x[i];
    const float *row = w + i * n;
#pragma omp simd
    for (int64_t c = 0; c < n; ++c)
      y[c] += xi * row[c];
  }
}

/// From this many columns on, a product takes four rows per pass.
constexpr int64_t kWideRow = 1536;

/// gemv_rows or gemv_rows_by_four, by the width. Both are called directly:
/// chosen through a function pointer, the narrow one ran 1.4 times slower.
void accumulate_rows(const float *x, const float *w, float *y, int64_t k0,
                     int64_t k1, int64_t n) {
  if (n >= kWideRow)
    gemv_rows_by_four(x, w, y, k0, k1, n);
  else
    gemv_rows(x, w, y, k0, k1, n);
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

Lowered gemv_lowered(CpuOperands in, ResultTypes out, PostOps post) {
  const int64_t k = in[1].shape()[0], n = in[1].shape()[1];
  const std::vector<BoundPostOp> bound = bound_post_ops(post);
  // The weights are copied to 64-byte aligned memory: vector loads that
  // straddle cache lines slowed the stream measurably.
  const size_t bytes = sizeof(float) * static_cast<size_t>(k * n);
  std::shared_ptr<float> weights(
      static_cast<float *>(std::aligned_alloc(64, (bytes + 63) / 64 * 64)),
      [](float *p) { std::free(p); });
  if (!weights)
    throw Error("backend cpu: out of memory for gemv weights");
  std::memcpy(weights.get(), in[1].static_data, bytes);
  Lowered l;
  l.in = plain_mds(in);
  l.out = plain_mds(out);
  l.impl = "gemv";
  l.copied_static = {1};
  // Threads split the rows (each streams a contiguous part of W), then
  // sum their partial rows column slab by column slab and apply the
  // epilogue there. Splitting columns instead reads W with gaps, which
  // measured slower than one thread.
  l.bind = [k, n, bound, weights](const Bound &b) -> Step {
    auto partial = std::make_shared<std::vector<float>>();
    std::vector<float *> in = b.in;
    in[1] = weights.get();
    return [k, n, bound, partial, weights, in, y = b.out[0]] {
      const int threads =
          k * n < kParallelWeights ? 1 : std::max(1, omp_get_max_threads());
      if (threads == 1) {
        accumulate_rows(in[0], in[1], y, 0, k, n);
        apply_epilogue(bound, in, y, 0, n);
        return;
      }
      partial->resize(static_cast<size_t>(threads * n));
      float *parts = partial->data();
#pragma omp parallel num_threads(threads)
      {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        accumulate_rows(in[0], in[1], parts + t * n, k * t / nt,
                        k * (t + 1) / nt, n);
#pragma omp barrier
        // Slabs of whole 64-byte lines, one per thread.
        const int64_t lines = (n + 15) / 16;
        const int64_t c0 = std::min(n, lines * t / nt * 16);
        const int64_t c1 = std::min(n, lines * (t + 1) / nt * 16);
        for (int64_t c = c0; c < c1; ++c) {
          float sum = parts[c];
          for (int j = 1; j < nt; ++j)
            sum += parts[j * n + c];
          y[c] = sum;
        }
        apply_epilogue(bound, in, y, c0, c1);
      }
    };
  };
  return l;
}

std::optional<Lowered> point_conv_lowered(const Node &n, CpuOperands in,
                                          ResultTypes out, PostOps post) {
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
    as_gemv[0] = {&row, plain_md(row.shape), nullptr};
    as_gemv[1] = {&matrix, plain_md(matrix.shape), wt.data()};
    Lowered l = gemv_lowered(as_gemv, std::span(&result, 1), post);
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
