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

double peak_gflops(int threads) {
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

Machine measure_machine(int threads) {
  return {threads, peak_gflops(threads), triad_bandwidth(threads)};
}

nlohmann::json roofline(const Graph &g, const Machine &m, double quarry_ms,
                        double onnxruntime_ms) {
  const GraphStats s = graph_stats(g);
  const double bytes = 4.0 * static_cast<double>(s.parameters);
  const double compute_ms = static_cast<double>(s.flops) / m.peak_gflops / 1e6;
  const double memory_ms = bytes / m.bandwidth_gbs / 1e6;
  const double bound = std::max(compute_ms, memory_ms);
  return {{"gflop", static_cast<double>(s.flops) / 1e9},
          {"weight_mb", bytes / 1e6},
          {"peak_gflops", m.peak_gflops},
          {"bandwidth_gbs", m.bandwidth_gbs},
          {"compute_bound_ms", compute_ms},
          {"memory_bound_ms", memory_ms},
          {"bound_by", compute_ms >= memory_ms ? "compute" : "memory"},
          {"quarry_over_bound", quarry_ms / bound},
          {"onnxruntime_over_bound", onnxruntime_ms / bound}};
}

} // namespace quarry::bench
