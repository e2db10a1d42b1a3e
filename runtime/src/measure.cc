//===- measure.cc - Median of timed runs after warm-up --------------------===//
#include "quarry/runtime/measure.h"

#include "quarry/runtime/run_inputs.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace quarry::runtime {

double median_ms(Executable &e, const MeasureOptions &opts) {
  if (opts.runs < 1 || opts.warmup < 0)
    throw Error("measure: need at least one run and no negative warm-up");
  for (int i = 0; i < opts.warmup; ++i)
    e.execute();
  std::vector<double> ms;
  for (int i = 0; i < opts.runs; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    e.execute();
    const auto t1 = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  return ms[ms.size() / 2];
}

Timing summarize(std::vector<double> samples) {
  if (samples.empty())
    throw Error("measure: no timings to summarize");
  Timing t;
  t.runs = static_cast<int>(samples.size());
  std::sort(samples.begin(), samples.end());
  auto median_of = [](const std::vector<double> &v) {
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  };
  t.min_ms = samples.front();
  t.median_ms = median_of(samples);
  std::vector<double> dev;
  for (double x : samples)
    dev.push_back(std::abs(x - t.median_ms));
  std::sort(dev.begin(), dev.end());
  // Timings often repeat to the tick: a floor keeps a zero deviation from
  // rejecting every run but the median's equals.
  const double mad = std::max(median_of(dev), 0.01 * t.median_ms);
  double sum = 0;
  for (double x : samples)
    if (std::abs(x - t.median_ms) <= 3 * mad) {
      sum += x;
      ++t.kept;
    }
  t.ms = t.kept ? sum / t.kept : t.median_ms;
  t.steady = t.median_ms <= 1.5 * t.min_ms + 0.002;
  return t;
}

OpCost measure_op(Backend &b, const OpConfig &c, const MeasureOptions &opts) {
  if (opts.runs < 1 || opts.warmup < 0)
    throw Error("measure: need at least one run and no negative warm-up");
  const Graph g = single_op_graph(c);
  const Bindings<float> values = random_run_bindings(g, opts.seed);
  auto e = b.prepare_operator(g, values);
  e->set_inputs(values);
  OpCost best;
  double best_median = 0;
  for (int attempt = 0; attempt < std::max(opts.attempts, 1); ++attempt) {
    // Each run's steps timed alone; the kernel's time per run summarized.
    std::vector<double> kernel;
    OpCost cost;
    for (int run = 0; run < opts.runs; ++run) {
      double k = 0, r = 0;
      for (const StepInfo &s :
           e->profile(run == 0 && attempt == 0 ? opts.warmup : 0, 1)) {
        (s.reorder ? r : k) += s.ms;
        if (!s.reorder) {
          cost.layout = s.layout;
          cost.impl = s.impl;
        }
      }
      kernel.push_back(k);
      cost.reorder_ms += r / opts.runs;
    }
    const Timing t = summarize(kernel);
    cost.ms = t.ms;
    cost.steady = t.steady;
    cost.attempts = attempt + 1;
    if (attempt == 0 || t.median_ms < best_median) {
      best = cost;
      best_median = t.median_ms;
    }
    best.attempts = attempt + 1;
    if (t.steady) {
      best = cost;
      break;
    }
  }
  return best;
}

double measure(Backend &b, const OpConfig &c, const MeasureOptions &opts) {
  return measure_op(b, c, opts).ms;
}

} // namespace quarry::runtime
