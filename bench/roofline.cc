//===- roofline.cc - The machine's limits, measured -----------------------===//
#include "roofline.h"

#include "quarry/core/text.h"
#include "quarry/models/stats.h"
#include "quarry/runtime/backends.h"
#include "quarry/runtime/run_inputs.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

namespace quarry::bench {

namespace {

using Clock = std::chrono::steady_clock;

template <class F> double best_ns(int runs, F &&f) {
  double best = 1e300;
  for (int i = 0; i < runs; ++i) {
    const auto t0 = Clock::now();
    f();
    best = std::min(
        best,
        std::chrono::duration<double, std::nano>(Clock::now() - t0).count());
  }
  return best;
}

typedef float Floats16 __attribute__((vector_size(64)));
typedef float Floats8 __attribute__((vector_size(32)));

/// `iterations` rounds of kChains independent multiply-adds of vectors of
/// W floats; the chains cover the multiply-add's latency on both of a
/// core's vector units. Returns a sum of the chains so that none is dead.
/// Inlined into each caller, so that it is built for the caller's target.
template <class Vec, int W, int kChains> struct FmaLoop {
  [[gnu::always_inline]] static float run(int64_t iterations, float seed) {
    Vec acc[kChains], a, b;
    for (int j = 0; j < W; ++j) {
      a[j] = 1.0f - 1e-7f;
      b[j] = 1e-7f * seed;
    }
    for (int c = 0; c < kChains; ++c)
      acc[c] = b + static_cast<float>(c);
    for (int64_t i = 0; i < iterations; ++i)
      for (int c = 0; c < kChains; ++c)
        acc[c] = acc[c] * a + b;
    float sum = 0;
    for (int c = 0; c < kChains; ++c)
      for (int j = 0; j < W; ++j)
        sum += acc[c][j];
    return sum;
  }
  static constexpr double kFlopsPerIteration = 2.0 * W * kChains;
};

using Avx512Fma = FmaLoop<Floats16, 16, 16>;
using Avx2Fma = FmaLoop<Floats8, 8, 12>;

__attribute__((target("avx512f,fma"))) float fma_avx512(int64_t n, float s) {
  return Avx512Fma::run(n, s);
}
__attribute__((target("avx2,fma"))) float fma_avx2(int64_t n, float s) {
  return Avx2Fma::run(n, s);
}

double peak_gflops(int threads) {
  const bool avx512 = __builtin_cpu_supports("avx512f");
  if (!avx512 && !__builtin_cpu_supports("fma"))
    return 0; // no vector multiply-add to count
  constexpr int64_t iterations = 1 << 20;
  const double flops =
      threads * iterations *
      (avx512 ? Avx512Fma::kFlopsPerIteration : Avx2Fma::kFlopsPerIteration);
  std::vector<float> sink(static_cast<size_t>(threads));
  auto all = [&] {
#pragma omp parallel num_threads(threads)
    {
      const int t = omp_get_thread_num();
      sink[t] = avx512 ? fma_avx512(iterations, 1.0f + t)
                       : fma_avx2(iterations, 1.0f + t);
    }
  };
  all(); // warm: the clock rises and the threads start
  return flops / best_ns(10, all);
}

double matmul_gflops(int threads) {
  constexpr int64_t n = 1024;
  const Graph g = parse_graph("input a: [1024,1024]\nweight b: [1024,1024]\n"
                              "y = matmul(a, b)\noutput y\n");
  const Bindings<float> values = runtime::random_run_bindings(g, 1);
  runtime::BackendOptions o;
  o.threads = threads;
  auto exe = runtime::make_backend("cpu", o)->prepare(g, values);
  exe->set_inputs(values);
  exe->execute(); // warm
  return 2.0 * n * n * n / best_ns(10, [&] { exe->execute(); });
}

double triad_bandwidth(int threads) {
  constexpr int64_t n = int64_t{16} << 20; // 64 MiB per array
  std::unique_ptr<float[]> a(new float[n]), b(new float[n]), c(new float[n]);
  const float s = 3.0f;
  auto triad = [&] {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t i = 0; i < n; ++i)
      a[i] = b[i] + s * c[i];
  };
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    a[i] = 0.0f; // first touch on the thread that streams it
    b[i] = 1.0f;
    c[i] = 2.0f;
  }
  triad();
  return 3.0 * sizeof(float) * n / best_ns(5, triad);
}

} // namespace

Machine Machine::best_of(const Machine &o) const {
  return {threads, std::max(peak_gflops, o.peak_gflops),
          std::max(matmul_gflops, o.matmul_gflops),
          std::max(bandwidth_gbs, o.bandwidth_gbs)};
}

nlohmann::json Machine::to_json() const {
  return {{"threads", threads},
          {"peak_gflops", peak_gflops},
          {"matmul_gflops", matmul_gflops},
          {"bandwidth_gbs", bandwidth_gbs}};
}

Machine measure_machine(int threads) {
  return {threads, peak_gflops(threads), matmul_gflops(threads),
          triad_bandwidth(threads)};
}

Work work_of(const Graph &g) {
  const GraphStats s = graph_stats(g);
  return {static_cast<double>(s.flops),
          4.0 * static_cast<double>(s.parameters)};
}

nlohmann::json roofline(const Work &w, const Machine &m, double quarry_ms,
                        double onnxruntime_ms) {
  const double compute_ms = w.flops / m.peak_gflops / 1e6;
  const double memory_ms = w.weight_bytes / m.bandwidth_gbs / 1e6;
  const double bound = std::max(compute_ms, memory_ms);
  return {{"gflop", w.flops / 1e9},
          {"weight_mb", w.weight_bytes / 1e6},
          {"peak_gflops", m.peak_gflops},
          {"bandwidth_gbs", m.bandwidth_gbs},
          {"compute_bound_ms", compute_ms},
          {"memory_bound_ms", memory_ms},
          {"bound_by", compute_ms >= memory_ms ? "compute" : "memory"},
          {"quarry_over_bound", quarry_ms / bound},
          {"onnxruntime_over_bound", onnxruntime_ms / bound}};
}

} // namespace quarry::bench
