//===- measure.cc - Median of timed runs after warm-up --------------------===//
#include "quarry/runtime/measure.h"

#include "quarry/runtime/run_inputs.h"

#include <algorithm>
#include <chrono>

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

OpCost measure_op(Backend &b, const OpConfig &c, const MeasureOptions &opts) {
  if (opts.runs < 1 || opts.warmup < 0)
    throw Error("measure: need at least one run and no negative warm-up");
  const Graph g = single_op_graph(c);
  const Bindings<float> values = random_run_bindings(g, opts.seed);
  auto e = b.prepare(g, values);
  e->set_inputs(values);
  OpCost cost;
  for (const StepInfo &s : e->profile(opts.warmup, opts.runs)) {
    if (s.reorder) {
      cost.reorder_ms += s.ms;
      continue;
    }
    cost.ms += s.ms;
    cost.layout = s.layout;
    cost.impl = s.impl;
  }
  return cost;
}

double measure(Backend &b, const OpConfig &c, const MeasureOptions &opts) {
  return measure_op(b, c, opts).ms;
}

} // namespace quarry::runtime
