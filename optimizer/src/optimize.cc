//===- optimize.cc - A model through search and folding -------------------===//
#include "quarry/optimizer/optimize.h"

#include "quarry/core/text.h"
#include "quarry/core/timed_in_turn.h"
#include "quarry/optimizer/constant_fold.h"
#include "quarry/optimizer/layout_trial.h"
#include "quarry/runtime/backends.h"
#include "quarry/runtime/plan.h"
#include "quarry/runtime/run_inputs.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>

namespace quarry::opt {

namespace {

/// Whether `weights` has a value for each of the graph's weights.
bool has_all_weights(const Graph &g, const WeightTable &weights) {
  return std::all_of(g.nodes().begin(), g.nodes().end(), [&](const Node &n) {
    return n.kind != OpKind::Weight || weights.count(n.name);
  });
}

/// The graph with the weights it uses from `full`, static subgraphs
/// folded. `owned` is `full` when this is its last use and it may be
/// taken apart: the weights are then moved, not copied.
Model folded(const Graph &g, const Model &full, Model *owned) {
  Model m{g, {}, owned ? std::move(owned->kept_onnx) : full.kept_onnx};
  for (const Node &n : m.graph.nodes())
    if (n.kind == OpKind::Weight)
      m.weights.emplace(n.name, owned ? std::move(owned->weights.at(n.name))
                                      : full.weights.at(n.name));
  return fold_constants(std::move(m));
}

/// Rounds the launch probe is timed: one run takes microseconds.
constexpr int kProbeRounds = 50;

std::string fixed(double x, int digits) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", digits, x);
  return text;
}

/// "2%", "2.5%".
std::string percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%g%%", std::round(fraction * 1000) / 10);
  return text;
}

/// "1.012x (1.6094 ms against the original's 1.6287 ms)".
std::string speedup_text(const TimedGraph &t) {
  return fixed(t.measured_speedup, 3) + "x (" + fixed(t.measured_ms, 4) +
         " ms against the original's " +
         fixed(t.measured_ms * t.measured_speedup, 4) + " ms)";
}

} // namespace

// A candidate wins when its median is min_gain below the original's in the
// same pair, and three quarters of its runs beat that median: a gain the
// machine's noise could have made is no gain.
std::string why_not_a_win(const std::vector<double> &original,
                          const std::vector<double> &candidate, double min_gain,
                          const std::string &baseline) {
  const double o50 = quantile(original, 0.5), c50 = quantile(candidate, 0.5),
               c75 = quantile(candidate, 0.75);
  if (!(c50 < (1.0 - min_gain) * o50))
    return "its median, " + fixed(c50, 4) + " ms against " + baseline + "'s " +
           fixed(o50, 4) + " ms (" + fixed(o50 / c50, 3) + "x), is not " +
           percent(min_gain) + " below it";
  if (!(c75 < o50))
    return "its median, " + fixed(c50, 4) + " ms against " + baseline + "'s " +
           fixed(o50, 4) + " ms (" + fixed(o50 / c50, 3) +
           "x), is not steady: a quarter of its runs took " + fixed(c75, 4) +
           " ms or more, no faster than " + baseline + "'s median (noise)";
  return "";
}

namespace {

/// The ms of the original and of the graph after each step of `chosen`,
/// rebuilt step by step. Each step is timed against the graph before it,
/// the two in turn, and its measured ratio carries the chain on from the
/// original's median: two graphs are prepared at a time, however many
/// steps there are (a search at budget 1000 may apply dozens). `original`
/// times `full`, prepared already; it is let go after the first step.
std::vector<double>
time_each_step(const Model &full,
               const std::vector<rewrite::Transformation> &transformations,
               const TimedGraph &chosen, const SelectOptions &select,
               std::function<double()> &&original) {
  Graph g = full.graph;
  std::function<double()> before = std::move(original);
  std::vector<double> ms;
  for (size_t i = 0; i < chosen.steps.size(); ++i) {
    auto next = transformations[chosen.steps[i]].apply_at(rewrite::HostInfo(g),
                                                          chosen.ordinals[i]);
    if (!next)
      throw Error("optimize: step " + std::to_string(i) +
                  " could not be replayed");
    g = std::move(*next);
    std::function<double()> after = select.timer(g, full.weights);
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

Graph launch_probe() {
  constexpr int kKernels = 64;
  std::string text = "input x: [1,256]\ninput c: [1,256]\n";
  std::string previous = "x";
  for (int i = 0; i < kKernels; ++i) {
    const std::string next = "p" + std::to_string(i);
    text += next + (i % 2 ? " = ewmul(" : " = ewadd(") + previous + ", c)\n";
    previous = next;
  }
  return parse_graph(text + "output " + previous + "\n", "<launch probe>");
}

namespace {

/// Reorders `r.ranked` by `predicted` (critical paths over streams),
/// keeping only graphs predicted cheaper than the original, and makes
/// `best`, `best_cost`, `steps` and `initial_cost` say the same (the
/// original when none is cheaper).
template <class Predicted>
void rank_by_critical_path(SearchResult &r, const Graph &original,
                           Predicted &&predicted) {
  r.initial_cost = predicted(original);
  for (RankedGraph &g : r.ranked)
    g.cost = predicted(g.graph);
  std::stable_sort(r.ranked.begin(), r.ranked.end(),
                   [](const RankedGraph &a, const RankedGraph &b) {
                     return a.cost < b.cost;
                   });
  std::erase_if(r.ranked, [&](const RankedGraph &g) {
    return g.steps.empty() || !(g.cost < r.initial_cost);
  });
  if (r.ranked.empty()) {
    r.best = original;
    r.best_cost = r.initial_cost;
    r.steps.clear();
    return;
  }
  r.best = r.ranked.front().graph;
  r.best_cost = r.ranked.front().cost;
  r.steps = r.ranked.front().steps;
}

} // namespace

OptimizeResult
optimize(const Model &m,
         const std::vector<rewrite::Transformation> &transformations,
         CostModel &cost, const SearchOptions &opts,
         const SelectOptions &select_in, uint64_t seed,
         const std::function<void(const SearchProgress &)> &progress) {
  // The model's own weights when it has them all: a copy would hold a
  // network's weights twice while graphs are prepared. A completed copy
  // only when some are missing.
  std::optional<Model> completed;
  if (!has_all_weights(m.graph, m.weights))
    completed = complete_weights(m, seed);
  const Model &full = completed ? *completed : m;
  Model *owned = completed ? &*completed : nullptr;
  OptimizeResult r;
  SelectOptions select = select_in;
  if (select.candidates > 0 && !select.timer_runs_kept_nodes) {
    r.not_timed = runtime::why_unrunnable(full.graph);
    if (!r.not_timed.empty())
      select.candidates = 0;
  }
  SearchOptions search_opts = opts;
  search_opts.keep_best = std::max(opts.keep_best, select.candidates);
  if (select.streams != 1)
    search_opts.keep_best = std::max(search_opts.keep_best, kStreamsRanked);
  auto phase = [&](const std::string &what) {
    if (select.phase)
      select.phase(what);
  };
  if (select.candidates > 0 && select.calibrate && select.timer) {
    phase("calibrating: timing the original, " +
          std::to_string(std::max(select.rounds, 1)) + " runs");
    const auto samples = time_in_turn({select.timer(full.graph, full.weights)},
                                      std::max(select.rounds, 1));
    r.calibrated_on_ms = quantile(samples[0], 0.5);
    const Graph probe = launch_probe();
    const double probe_ms =
        quantile(time_in_turn({select.timer(probe, {})}, kProbeRounds)[0], 0.5);
    cost.calibrate(full.graph, r.calibrated_on_ms, &probe, probe_ms);
    r.launch_ms = cost.launch_ms();
    r.calibration_scale = cost.scale();
  }
  r.search = search(full.graph, transformations, cost, search_opts, progress);
  // Predicted costs: sums of operators, or critical paths over streams.
  auto predicted = [&](const Graph &g) {
    return select.streams == 1 ? cost.graph_cost(g)
                               : cost.critical_path_cost(g, select.streams);
  };
  if (select.streams != 1)
    rank_by_critical_path(r.search, full.graph, predicted);
  if (select.candidates <= 0) {
    r.model = folded(r.search.best, full, owned);
    r.final_cost = predicted(r.model.graph);
    r.steps = r.search.steps;
    return r;
  }
  if (!select.timer)
    throw Error("optimize: selection needs a way to time graphs");

  // The original, then the cheapest candidates that differ from it. Each
  // candidate is timed against the original, the two in turn, and let go
  // before the next is prepared: two graphs are prepared at a time however
  // many are timed (a prepared NASNet-A holds hundreds of MB of reordered
  // weights and activations). Candidates are prepared unfolded, with the
  // original's weights (PrepareTimer); only the winner is folded.
  std::vector<const RankedGraph *> candidates{nullptr};
  r.timed.push_back({r.search.initial_cost, 0, 1, {}, {}});
  for (const RankedGraph &g : r.search.ranked) {
    if (static_cast<int>(candidates.size()) > select.candidates)
      break;
    if (!g.steps.empty())
      candidates.push_back(&g);
  }
  phase("selecting: timing " + std::to_string(candidates.size() - 1) +
        " candidates, each in turn with the original, " +
        std::to_string(select.rounds) + " rounds");
  std::function<double()> original_timer =
      select.timer(full.graph, full.weights);
  std::vector<double> original_ms;
  const auto wins = [&](const std::vector<double> &original,
                        const std::vector<double> &candidate) {
    return why_not_a_win(original, candidate, select.min_gain).empty();
  };
  r.chosen = 0;
  double best_ratio = 1.0;
  for (size_t i = 1; i < candidates.size(); ++i) {
    const Graph &g = candidates[i]->graph;
    r.timed.push_back(
        {predicted(g), 0, 1, candidates[i]->steps, candidates[i]->ordinals});
    const std::vector<std::vector<double>> ms = time_in_turn(
        {original_timer, select.timer(g, full.weights)}, select.rounds);
    const double pair_original = quantile(ms[0], 0.5);
    original_ms.insert(original_ms.end(), ms[0].begin(), ms[0].end());
    r.timed[i].measured_ms = quantile(ms[1], 0.5);
    r.timed[i].measured_speedup = pair_original / r.timed[i].measured_ms;
    const double ratio = 1.0 / r.timed[i].measured_speedup;
    if (wins(ms[0], ms[1]) && ratio < best_ratio) {
      r.chosen = static_cast<int>(i);
      best_ratio = ratio;
    }
  }
  if (r.chosen != 0 && select.confirm) {
    phase("confirming: timing candidate " + std::to_string(r.chosen) +
          " again with the original, both prepared afresh, " +
          std::to_string(select.rounds) + " rounds");
    // Let go first, so the fresh ones take other memory.
    original_timer = nullptr;
    std::function<double()> candidate_timer =
        select.timer(candidates[r.chosen]->graph, full.weights);
    original_timer = select.timer(full.graph, full.weights);
    const std::vector<std::vector<double>> ms =
        time_in_turn({candidate_timer, original_timer}, select.rounds);
    candidate_timer = nullptr;
    r.confirmed_speedup = quantile(ms[1], 0.5) / quantile(ms[0], 0.5);
    if (const std::string why = why_not_a_win(ms[1], ms[0], select.min_gain);
        !why.empty()) {
      r.kept_because = "candidate " + std::to_string(r.chosen) + " measured " +
                       speedup_text(r.timed[r.chosen]) +
                       ", but timed again with both prepared afresh " + why;
      r.unconfirmed = r.chosen;
      r.chosen = 0;
    }
  } else if (r.chosen == 0 && candidates.size() > 1) {
    // Name the candidate that came closest.
    size_t best = 1;
    for (size_t i = 2; i < r.timed.size(); ++i)
      if (r.timed[i].measured_speedup > r.timed[best].measured_speedup)
        best = i;
    r.kept_because =
        "no candidate measured at least " + percent(select.min_gain) +
        " faster with three quarters of its runs below the "
        "original's median; the closest, candidate " +
        std::to_string(best) + ", measured " + speedup_text(r.timed[best]);
  } else if (r.chosen == 0) {
    r.kept_because =
        select.streams != 1
            ? "no graph the search found has a shorter critical path over "
              "the streams"
            : "the search found no graph that differs from it";
  }
  if (r.chosen != 0 && select.choices_on &&
      !rewrite::chosen_implementations(candidates[r.chosen]->graph).empty()) {
    phase("checking: the winner's chosen implementations against the "
          "reference");
    const Model winner{candidates[r.chosen]->graph, full.weights};
    r.implementations_error =
        output_error(full, winner, seed, select.choices_on);
    if (!(r.implementations_error <= select.choice_tolerance)) {
      r.kept_because =
          "candidate " + std::to_string(r.chosen) + " measured " +
          speedup_text(r.timed[r.chosen]) +
          ", but with the implementations it chose its outputs differ from "
          "the original's on the reference by " +
          std::to_string(r.implementations_error) + ", more than " +
          std::to_string(select.choice_tolerance);
      r.unconfirmed = r.chosen;
      r.chosen = 0;
    }
  }
  if (original_ms.empty()) // no candidate differs from the original
    original_ms = time_in_turn({original_timer}, select.rounds)[0];
  r.timed[0].measured_ms = quantile(std::move(original_ms), 0.5);
  r.kept_original = r.chosen == 0;
  r.final_cost = r.timed[r.chosen].predicted_ms;
  r.steps = r.timed[r.chosen].steps;
  if (!r.kept_original && select.attribute) {
    phase("attributing: timing the graph after each of " +
          std::to_string(r.steps.size()) + " steps, " +
          std::to_string(select.attribute_rounds) + " rounds");
    r.step_ms = time_each_step(full, transformations, r.timed[r.chosen], select,
                               std::move(original_timer));
  }
  original_timer = nullptr; // the prepared original
  r.model = r.kept_original ? (owned ? std::move(*owned) : full)
                            : folded(candidates[r.chosen]->graph, full, owned);
  if (!select.layouts.empty() && r.not_timed.empty())
    try_layouts(r, select, seed);
  if (r.layout_kept())
    r.implementations_error =
        std::max(r.implementations_error, r.layouts.back().error);
  r.implementations = rewrite::chosen_implementations(r.model.graph);
  if (r.implementations.empty())
    r.implementations_error = -1;
  return r;
}

OptimizeResult
optimize(const Model &m,
         const std::vector<rewrite::Transformation> &transformations,
         CostModel &cost, const SearchOptions &opts, uint64_t seed,
         const std::function<void(const SearchProgress &)> &progress) {
  SelectOptions none;
  none.candidates = 0;
  return optimize(m, transformations, cost, opts, none, seed, progress);
}

namespace {

/// Seeded values for the graph's variables, the table's where it has them.
Bindings<float> values_for(const Graph &g, const WeightTable &weights,
                           uint64_t seed) {
  Bindings<float> v = runtime::random_run_bindings(g, seed);
  for (auto &[name, t] : v)
    if (auto it = weights.find(name); it != weights.end())
      t = it->second;
  return v;
}

/// `g` prepared on `backend` with seeded inputs set. A graph whose weights
/// are all in the table is prepared from it, not from a copy: selection
/// holds two prepared graphs, and a copy of a network's weights is as
/// large as the rest of a prepared graph. Weights the table lacks get
/// seeded values.
std::unique_ptr<runtime::Executable> prepared(const Graph &g,
                                              const WeightTable &weights,
                                              runtime::Backend &backend,
                                              uint64_t seed) {
  std::unique_ptr<runtime::Executable> exe;
  if (has_all_weights(g, weights)) {
    exe = backend.prepare(g, weights);
    exe->set_inputs(runtime::random_run_inputs(g, seed));
  } else {
    const Bindings<float> v = values_for(g, weights, seed);
    exe = backend.prepare(g, v);
    exe->set_inputs(v);
  }
  return exe;
}

} // namespace

double output_error(const Model &before, const Model &after, uint64_t seed,
                    runtime::Backend *after_on) {
  auto reference = runtime::make_backend("reference");
  const Bindings<float> in_before =
      values_for(before.graph, before.weights, seed);
  Bindings<float> in_after = values_for(after.graph, after.weights, seed);
  // The inputs must be the very same tensors on both sides.
  for (const Node &n : before.graph.nodes())
    if (n.kind == OpKind::Input)
      in_after[n.name] = in_before.at(n.name);
  const auto want = runtime::run_once(
      *reference->prepare(before.graph, in_before), in_before);
  runtime::Backend &runs_after = after_on ? *after_on : *reference;
  const auto got =
      runtime::run_once(*runs_after.prepare(after.graph, in_after), in_after);
  return runtime::max_relative_error(got, want);
}

PrepareTimer backend_timer(runtime::Backend &backend, int warmup,
                           uint64_t seed) {
  return [&backend, warmup,
          seed](const Graph &g,
                const WeightTable &weights) -> std::function<double()> {
    std::shared_ptr<runtime::Executable> exe =
        prepared(g, weights, backend, seed);
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
  return runtime::median_ms(*prepared(m.graph, m.weights, backend, opts.seed),
                            opts);
}

} // namespace quarry::opt
