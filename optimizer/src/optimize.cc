//===- optimize.cc - A model through search and folding -------------------===//
#include "quarry/optimizer/optimize.h"

#include "quarry/optimizer/constant_fold.h"
#include "quarry/runtime/backends.h"
#include "quarry/runtime/plan.h"
#include "quarry/runtime/run_inputs.h"

#include <algorithm>
#include <chrono>
#include <memory>

namespace quarry::opt {

namespace {

/// The graph with the weights it uses, static subgraphs folded.
Model folded(const Graph &g, const Model &full) {
  Model m{g, {}, full.kept_onnx};
  for (const Node &n : m.graph.nodes())
    if (n.kind == OpKind::Weight)
      m.weights.emplace(n.name, full.weights.at(n.name));
  return fold_constants(std::move(m));
}

/// folded() for the last use of `full`: its weights are moved, not copied.
Model folded_last(const Graph &g, Model &&full) {
  Model m{g, {}, std::move(full.kept_onnx)};
  for (const Node &n : m.graph.nodes())
    if (n.kind == OpKind::Weight)
      m.weights.emplace(n.name, std::move(full.weights.at(n.name)));
  return fold_constants(std::move(m));
}

/// The samples of each timer, timed in turn, round after round.
std::vector<std::vector<double>>
time_in_turn(const std::vector<std::function<double()>> &timers, int rounds) {
  std::vector<std::vector<double>> ms(timers.size());
  for (int round = 0; round < std::max(rounds, 1); ++round)
    for (size_t i = 0; i < timers.size(); ++i)
      ms[i].push_back(timers[i]());
  return ms;
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

/// The ms of the original and of the graph after each step of `chosen`,
/// rebuilt step by step. Each step is timed against the graph before it,
/// the two in turn, and its measured ratio carries the chain on from the
/// original's median: two graphs are prepared at a time, however many
/// steps there are (a search at budget 1000 may apply dozens).
std::vector<double>
time_each_step(const Model &full,
               const std::vector<Transformation> &transformations,
               const TimedGraph &chosen, const SelectOptions &select) {
  Graph g = full.graph;
  std::function<double()> before = select.timer(full);
  std::vector<double> ms;
  for (size_t i = 0; i < chosen.steps.size(); ++i) {
    auto next = transformations[chosen.steps[i]].apply_at(HostInfo(g),
                                                          chosen.ordinals[i]);
    if (!next)
      throw Error("optimize: step " + std::to_string(i) +
                  " could not be replayed");
    g = std::move(*next);
    std::function<double()> after = select.timer(folded(g, full));
    const auto samples = time_in_turn({before, after}, select.attribute_rounds);
    const double a = quantile(samples[0], 0.5), b = quantile(samples[1], 0.5);
    if (ms.empty())
      ms.push_back(a);
    ms.push_back(ms.back() * b / a);
    before = std::move(after);
  }
  if (ms.empty())
    ms.push_back(
        quantile(time_in_turn({before}, select.attribute_rounds)[0], 0.5));
  return ms;
}

} // namespace

OptimizeResult
optimize(const Model &m, const std::vector<Transformation> &transformations,
         CostModel &cost, const SearchOptions &opts,
         const SelectOptions &select_in, uint64_t seed,
         const std::function<void(const SearchProgress &)> &progress) {
  Model full = complete_weights(m, seed);
  OptimizeResult r;
  SelectOptions select = select_in;
  if (select.candidates > 0) {
    r.not_timed = runtime::why_unrunnable(full.graph);
    if (!r.not_timed.empty())
      select.candidates = 0;
  }
  SearchOptions search_opts = opts;
  search_opts.keep_best = std::max(opts.keep_best, select.candidates);
  auto phase = [&](const std::string &what) {
    if (select.phase)
      select.phase(what);
  };
  if (select.candidates > 0 && select.calibrate && select.timer) {
    phase("calibrating: timing the original, " +
          std::to_string(std::max(select.rounds, 1)) + " runs");
    const auto samples =
        time_in_turn({select.timer(full)}, std::max(select.rounds, 1));
    r.calibrated_on_ms = quantile(samples[0], 0.5);
    cost.calibrate(full.graph, r.calibrated_on_ms);
    r.launch_ms = cost.launch_ms();
  }
  r.search = search(full.graph, transformations, cost, search_opts, progress);
  if (select.candidates <= 0) {
    r.model = folded_last(r.search.best, std::move(full));
    r.final_cost = cost.graph_cost(r.model.graph);
    r.steps = r.search.steps;
    return r;
  }
  if (!select.timer)
    throw Error("optimize: selection needs a way to time graphs");

  // The original, then the cheapest candidates that differ from it. Each
  // is prepared and its folded model let go (the prepared graph holds what
  // it needs): only the winner is folded again.
  std::vector<const RankedGraph *> candidates{nullptr};
  r.timed.push_back({r.search.initial_cost, 0, {}, {}});
  for (const RankedGraph &g : r.search.ranked) {
    if (static_cast<int>(candidates.size()) > select.candidates)
      break;
    if (!g.steps.empty())
      candidates.push_back(&g);
  }
  phase("selecting: timing the original and " +
        std::to_string(candidates.size() - 1) + " candidates in turn, " +
        std::to_string(select.rounds) + " rounds");
  std::vector<std::function<double()>> timers{select.timer(full)};
  for (size_t i = 1; i < candidates.size(); ++i) {
    const Model model = folded(candidates[i]->graph, full);
    r.timed.push_back({cost.graph_cost(model.graph), 0, candidates[i]->steps,
                       candidates[i]->ordinals});
    timers.push_back(select.timer(model));
  }
  const auto ms = time_in_turn(timers, select.rounds);
  timers.clear(); // the prepared graphs
  for (size_t i = 0; i < candidates.size(); ++i)
    r.timed[i].measured_ms = quantile(ms[i], 0.5);

  // A candidate wins when its median is min_gain below the original's and
  // three quarters of its runs beat the original's median: a gain the
  // machine's noise could have made is no gain.
  const double original = r.timed[0].measured_ms;
  r.chosen = 0;
  for (size_t i = 1; i < candidates.size(); ++i)
    if (r.timed[i].measured_ms < original * (1.0 - select.min_gain) &&
        quantile(ms[i], 0.75) < original &&
        r.timed[i].measured_ms < r.timed[r.chosen].measured_ms)
      r.chosen = static_cast<int>(i);
  r.kept_original = r.chosen == 0;
  r.final_cost = r.timed[r.chosen].predicted_ms;
  r.steps = r.timed[r.chosen].steps;
  if (!r.kept_original && select.attribute) {
    phase("attributing: timing the graph after each of " +
          std::to_string(r.steps.size()) + " steps, " +
          std::to_string(select.attribute_rounds) + " rounds");
    r.step_ms =
        time_each_step(full, transformations, r.timed[r.chosen], select);
  }
  r.model = r.kept_original
                ? std::move(full)
                : folded_last(candidates[r.chosen]->graph, std::move(full));
  return r;
}

OptimizeResult
optimize(const Model &m, const std::vector<Transformation> &transformations,
         CostModel &cost, const SearchOptions &opts, uint64_t seed,
         const std::function<void(const SearchProgress &)> &progress) {
  SelectOptions none;
  none.candidates = 0;
  return optimize(m, transformations, cost, opts, none, seed, progress);
}

namespace {

/// The model's weights with seeded values for its inputs.
Bindings<float> values_for(const Model &m, uint64_t seed) {
  Bindings<float> v = runtime::random_run_bindings(m.graph, seed);
  for (const auto &[name, t] : m.weights)
    v[name] = t;
  return v;
}

} // namespace

double output_error(const Model &before, const Model &after, uint64_t seed) {
  auto reference = runtime::make_backend("reference");
  const Bindings<float> in_before = values_for(before, seed);
  Bindings<float> in_after = values_for(after, seed);
  // The inputs must be the very same tensors on both sides.
  for (const Node &n : before.graph.nodes())
    if (n.kind == OpKind::Input)
      in_after[n.name] = in_before.at(n.name);
  const auto want = runtime::run_once(
      *reference->prepare(before.graph, in_before), in_before);
  const auto got =
      runtime::run_once(*reference->prepare(after.graph, in_after), in_after);
  return runtime::max_relative_error(got, want);
}

PrepareTimer backend_timer(runtime::Backend &backend, int warmup,
                           uint64_t seed) {
  return [&backend, warmup, seed](const Model &m) -> std::function<double()> {
    const Bindings<float> v = values_for(m, seed);
    std::shared_ptr<runtime::Executable> exe = backend.prepare(m.graph, v);
    exe->set_inputs(v);
    for (int i = 0; i < warmup; ++i)
      exe->execute();
    return [exe] {
      const auto t0 = std::chrono::steady_clock::now();
      exe->execute();
      return std::chrono::duration<double, std::milli>(
                 std::chrono::steady_clock::now() - t0)
          .count();
    };
  };
}

double measure_latency(const Model &m, runtime::Backend &backend,
                       const runtime::MeasureOptions &opts) {
  const Bindings<float> v = values_for(m, opts.seed);
  auto exe = backend.prepare(m.graph, v);
  exe->set_inputs(v);
  return runtime::median_ms(*exe, opts);
}

} // namespace quarry::opt
