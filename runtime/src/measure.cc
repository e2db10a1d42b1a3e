//===- measure.cc - Median of timed runs after warm-up --------------------===//
#include "quarry/runtime/measure.h"

#include "quarry/core/timed_in_turn.h"
#include "quarry/runtime/run_inputs.h"

#include <algorithm>
#include <cmath>
#include <memory>

namespace quarry::runtime {

namespace {
bool is_plain_layout(const std::string &layout) {
  return layout == "plain" || layout == "nchw";
}
} // namespace

double median_ms(Executable &e, const MeasureOptions &opts) {
  if (opts.runs < 1 || opts.warmup < 0)
    throw Error("measure: need at least one run and no negative warm-up");
  TurnPolicy policy;
  policy.rounds = opts.runs;
  policy.warmup_rounds = opts.warmup;
  return median(time_in_turn(std::vector<std::function<double()>>{[&] {
                               return time_ms([&] { e.execute(); });
                             }},
                             policy)[0]);
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
  if (opts.runs < 1 || opts.warmup < 0 || opts.cold_placements < 1)
    throw Error("measure: need at least one run and placement and no "
                "negative warm-up");
  const Graph g = single_op_graph(c);
  const Bindings<float> values = random_run_bindings(g, opts.seed);
  // Read from memory, a kernel's time depends on where its weights landed
  // (a 1 MB matrix-vector product takes 23 to 43 us from one preparation
  // to the next, each steady): a cold measurement pools the runs of
  // several preparations. Warm, one preparation serves every attempt.
  const int placements = opts.cold_weights ? opts.cold_placements : 1;
  const bool chosen = names_implementation(c);
  std::unique_ptr<Executable> e;
  auto prepare = [&] {
    e = b.prepare_operator(g, values);
    e->set_inputs(values);
    for (int i = 0; i < opts.warmup; ++i)
      e->execute();
  };
  OpCost best;
  double best_median = 0;
  for (int attempt = 0; attempt < std::max(opts.attempts, 1); ++attempt) {
    // Each run's steps timed alone; the kernel's time per run summarized.
    std::vector<double> kernel;
    OpCost cost;
    for (int placement = 0; placement < placements; ++placement) {
      if (!e || placements > 1)
        prepare();
      for (int run = 0; run < opts.runs; ++run) {
        if (opts.cold_weights) {
          // Weights from memory; computed operands warm, as the operator
          // before this one would leave them (setting them touches them).
          b.evict_caches();
          e->set_inputs(values);
        }
        double k = 0, r = 0;
        for (const StepInfo &s : e->profile(0, 1)) {
          // A graph input arrives plain; getting it into the layout
          // activations live in is no part of the operator's cost.
          const bool leaves_layout =
              chosen && s.reorder && !is_plain_layout(s.from_layout);
          (s.reorder && !leaves_layout ? r : k) += s.ms;
          if (!s.reorder) {
            cost.layout = s.layout;
            cost.impl = s.impl;
          }
        }
        kernel.push_back(k);
        cost.reorder_ms += r / (opts.runs * placements);
      }
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

bool weights_outgrow_cache(const Backend &b, const Graph &g) {
  const size_t cache = b.cache_bytes();
  if (cache == 0)
    return false;
  size_t bytes = 0;
  for (const Node &n : g.nodes())
    if (n.kind == OpKind::Weight && !n.types.empty())
      bytes += sizeof(float) * static_cast<size_t>(n.types[0].shape.numel());
  return bytes > cache;
}

double measure(Backend &b, const OpConfig &c, const MeasureOptions &opts) {
  return measure_op(b, c, opts).ms;
}

} // namespace quarry::runtime
