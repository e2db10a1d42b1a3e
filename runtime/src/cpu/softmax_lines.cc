//===- softmax_lines.cc - Softmax where oneDNN's is slow ------------------===//
#include "softmax_lines.h"

#include "primitive_step.h"

#include <algorithm>
#include <vector>

namespace quarry::runtime::cpu {

namespace {

/// Tensors below this many elements run on one thread.
constexpr int64_t kParallelElements = 1 << 16;

/// The [n, inner] block at `in`: `out` = in - each column's maximum.
void subtract_max(const float *in, float *out, int64_t n, int64_t inner,
                  std::vector<float> &m) {
  if (n == 0)
    return;
  if (inner == 1) {
    const float top = *std::max_element(in, in + n);
    for (int64_t k = 0; k < n; ++k)
      out[k] = in[k] - top;
    return;
  }
  m.assign(in, in + inner);
  for (int64_t k = 1; k < n; ++k)
    for (int64_t i = 0; i < inner; ++i)
      m[i] = std::max(m[i], in[k * inner + i]);
  for (int64_t k = 0; k < n; ++k)
    for (int64_t i = 0; i < inner; ++i)
      out[k * inner + i] = in[k * inner + i] - m[i];
}

/// The [n, inner] block at `y` divided by each column's sum (times its
/// reciprocal: a division per element would cost more than the rest).
void divide_by_sum(float *y, int64_t n, int64_t inner, std::vector<float> &s) {
  if (inner == 1) {
    float sum = 0.0f;
    for (int64_t k = 0; k < n; ++k)
      sum += y[k];
    const float r = 1.0f / sum;
    for (int64_t k = 0; k < n; ++k)
      y[k] *= r;
    return;
  }
  s.assign(static_cast<size_t>(inner), 0.0f);
  for (int64_t k = 0; k < n; ++k)
    for (int64_t i = 0; i < inner; ++i)
      s[i] += y[k * inner + i];
  for (float &v : s)
    v = 1.0f / v;
  for (int64_t k = 0; k < n; ++k)
    for (int64_t i = 0; i < inner; ++i)
      y[k * inner + i] *= s[i];
}

} // namespace

Lowered softmax_lines(Context &c, const Shape &x, int axis) {
  int64_t outer = 1, inner = 1;
  for (int k = 0; k < axis; ++k)
    outer *= x[k];
  for (int k = axis + 1; k < x.rank(); ++k)
    inner *= x[k];
  const int64_t n = x[axis];
  const auto md = plain_md(x);
  const auto flat = plain_md(Shape({x.numel()}));
  const dnnl::eltwise_forward::desc d(dnnl::prop_kind::forward_inference,
                                      dnnl::algorithm::eltwise_exp, flat, 0.0f,
                                      0.0f);
  const dnnl::eltwise_forward::primitive_desc pd(d, c.engine);
  Lowered l;
  l.in = {md};
  l.out = {md};
  l.impl = "loops+" + impl_name(pd);
  l.bind = [&c, pd, flat, outer, n, inner](const Bound &b) -> Step {
    const float *src = b.in[0];
    float *dst = b.out[0];
    dnnl::memory y(flat, c.engine, dst);
    return [p = dnnl::eltwise_forward(pd), y, s = c.stream, src, dst, outer, n,
            inner]() mutable {
      const int64_t block = n * inner;
      const bool parallel = outer * block >= kParallelElements;
#pragma omp parallel if (parallel)
      {
        std::vector<float> column;
#pragma omp for schedule(static)
        for (int64_t o = 0; o < outer; ++o)
          subtract_max(src + o * block, dst + o * block, n, inner, column);
      }
      p.execute(s, {{DNNL_ARG_SRC, y}, {DNNL_ARG_DST, y}});
#pragma omp parallel if (parallel)
      {
        std::vector<float> column;
#pragma omp for schedule(static)
        for (int64_t o = 0; o < outer; ++o)
          divide_by_sum(dst + o * block, n, inner, column);
      }
    };
  };
  return l;
}

} // namespace quarry::runtime::cpu
