//===- pointwise_loops.cc - Elementwise functions oneDNN lacks ------------===//
#include "pointwise_loops.h"

#include <omp.h>

#include <algorithm>

namespace quarry::runtime::cpu {

namespace {

/// Below this many elements one thread does it all.
constexpr int64_t kParallelElements = 1 << 15;

// Built for each vector width the core may have; the loader picks one.
__attribute__((target_clones("avx512f", "avx2", "default"))) void
erf_range(const float *x, float *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = rational_erf(x[i]);
}

void scalar_range(ops::PointwiseFn fn, float alpha, float beta, const float *x,
                  float *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = ops::pointwise_value(fn, alpha, beta, x[i]);
}

void range(ops::PointwiseFn fn, float alpha, float beta, const float *x,
           float *y, int64_t n) {
  if (fn == ops::PointwiseFn::Erf)
    erf_range(x, y, n);
  else
    scalar_range(fn, alpha, beta, x, y, n);
}

} // namespace

void pointwise_loop(ops::PointwiseFn fn, float alpha, float beta,
                    const float *x, float *y, int64_t n) {
  const int threads =
      n < kParallelElements ? 1 : std::max(1, omp_get_max_threads());
  if (threads == 1)
    return range(fn, alpha, beta, x, y, n);
#pragma omp parallel num_threads(threads)
  {
    // Slices of whole 64-byte lines, one per thread.
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const int64_t lines = (n + 15) / 16;
    const int64_t i0 = std::min(n, lines * t / nt * 16);
    const int64_t i1 = std::min(n, lines * (t + 1) / nt * 16);
    range(fn, alpha, beta, x + i0, y + i0, i1 - i0);
  }
}

} // namespace quarry::runtime::cpu
