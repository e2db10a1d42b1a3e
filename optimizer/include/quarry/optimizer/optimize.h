//===- optimize.h - A model through search and folding ---------*- C++ -*-===//
//
//   Model --complete_weights--> search (rules + fusions, cost model)
//         --fold_constants--> the best few graphs
//         --measured end to end against the original--> optimized Model
// The cost model only proposes: the few cheapest graphs it found and the
// original are timed whole, in turn, and the fastest wins; when no
// candidate beats the original by SelectOptions::min_gain, the original is
// returned unchanged and the result says so. Also the checks the CLI and
// the benchmark report: the outputs of the original and the optimized
// model on the reference backend, and the measured latency of both.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/model.h"
#include "quarry/optimizer/search.h"

#include <string>
#include <vector>

namespace quarry::opt {

/// Prepares a graph to be timed and returns a function that times one
/// inference of it (ms): measured on a backend, or in tests a fixed
/// function of the graph. `weights` holds the graph's weights and may hold
/// more: candidates are timed with the original's table, unfolded (a
/// backend folds static subgraphs when it prepares), so no candidate
/// copies a network's weights.
using PrepareTimer =
    std::function<std::function<double()>(const Graph &, const WeightTable &)>;

struct SelectOptions {
  /// How many of the search's cheapest graphs are timed against the
  /// original; 0 trusts the cost model alone.
  int candidates = 3;
  /// A candidate replaces the original only when its median is at least
  /// this fraction below the original's (noise is not a speed-up).
  double min_gain = 0.02;
  /// Rounds of timing. Each candidate is timed against the original, the
  /// two in turn, so a busy spell of the machine falls on both alike; one
  /// pair after another, so that two graphs are prepared at a time.
  int rounds = 15;
  /// Required when candidates > 0.
  PrepareTimer timer;
  /// Whether `timer` runs graphs that hold opaque operators (in stages:
  /// staged/staged_timer.h); without it such a graph is chosen by the cost
  /// model alone (OptimizeResult::not_timed).
  bool timer_runs_kept_nodes = false;
  /// When a candidate wins: prepare it and the original afresh and time
  /// them again in turn, the candidate first, `rounds` rounds; it is kept
  /// only if it wins again. A win by a placement of memory that happened
  /// to favour one graph (two equivalent graphs the backend runs as the
  /// same kernels came out 3% apart) does not survive a second placement.
  bool confirm = true;
  /// When a candidate wins: time the graph after each of its steps against
  /// the graph before it (OptimizeResult::step_ms), `attribute_rounds`
  /// rounds, so that every applied rule shows the gain it contributed; two
  /// graphs are prepared at a time.
  bool attribute = true;
  int attribute_rounds = 5;
  /// Before the search: time a chain of tiny kernels for the cost per
  /// kernel, and the original whole to fit the operators' costs to
  /// (CostModel::calibrate).
  bool calibrate = true;
  /// Told, in a few words, what is being timed before each phase that
  /// measures (calibration, selection, attribution): they take minutes on
  /// large networks. May be empty.
  std::function<void(const std::string &)> phase;
  /// Streams the graphs will run on (runtime/streams.h; 0: auto). Other
  /// than 1, the search's cheapest graphs (kStreamsRanked of them) and the
  /// original are ranked by their critical path over the streams
  /// (CostModel::critical_path_cost), which picks what is timed, or what
  /// is chosen when nothing is; a merge of branches that would have run at
  /// once anyway gains nothing there. Costs reported are critical paths.
  int streams = 1;
  /// When set: a winner that names how its operators run
  /// (implementations.h: Winograd sums in another order) is run on this
  /// backend and compared with the original on the reference semantics,
  /// and kept only within `choice_tolerance` of it (relative, as
  /// runtime::max_relative_error).
  runtime::Backend *choices_on = nullptr;
  double choice_tolerance = 1e-4;
  /// Activation layouts to try on the graph selection chose, every
  /// convolution in one at a time (Backend::graph_layouts, layout_trial.h):
  /// timed against that graph as the candidates are against the original,
  /// confirmed likewise, and checked on `choices_on` where it is set.
  std::vector<ops::ConvLayout> layouts;
};

/// Graphs the search keeps for ranking by critical path (streams != 1).
constexpr int kStreamsRanked = 8;

/// A graph timed whole during selection.
struct TimedGraph {
  double predicted_ms = 0; ///< the cost model's estimate
  double measured_ms = 0;  ///< median of its runs
  /// The original's median over this graph's, both from the same pairs of
  /// runs (1 for the original itself): what the machine's drift between
  /// pairs cannot move.
  double measured_speedup = 1;
  std::vector<int> steps;    ///< transformations from the original
  std::vector<int> ordinals; ///< rewrite::Transformation::apply_at's, per step
};

/// A layout tried on the chosen graph (SelectOptions::layouts).
struct LayoutTrial {
  ops::ConvLayout layout = ops::ConvLayout::Nhwc;
  /// The chosen graph's median over the graph with its convolutions in
  /// `layout`, from the same pairs of runs; and timed again, prepared
  /// afresh, where it won (0: not timed again).
  double measured_speedup = 0, confirmed_speedup = 0;
  /// Its outputs' largest relative error against the reference, where it
  /// was checked (-1: not checked).
  double error = -1;
  bool kept = false;
  /// Why it was not kept, as the end of a sentence; "" where it was.
  std::string why_not;
};

struct OptimizeResult {
  Model model;         ///< the optimized model, static subgraphs folded
  SearchResult search; ///< best graph before folding, costs, steps
  /// Cost-model estimate of `model`: search.best_cost unless the original
  /// was kept.
  double final_cost = 0;
  /// Transformations that made `model`, in order (empty: the original).
  std::vector<int> steps;
  /// With selection: timed[0] is the original, then the candidates.
  std::vector<TimedGraph> timed;
  /// Index into `timed` of the graph returned (0: the original).
  int chosen = -1;
  /// Selection ran and found no candidate faster than the original.
  bool kept_original = false;
  /// With confirmation: the winner's speed-up when timed again, prepared
  /// afresh (0 when not timed again). Below the winning threshold, the
  /// original was kept and `unconfirmed` is the candidate's index.
  double confirmed_speedup = 0;
  int unconfirmed = 0;
  /// With attribution: the measured ms of the original and of the graph
  /// after each step (steps.size() + 1 values; step i gained
  /// step_ms[i] / step_ms[i + 1], as timed against the graph before it,
  /// the two in turn).
  std::vector<double> step_ms;
  /// With calibration: the original's measured ms it was fitted on, the
  /// cost per kernel measured on the launch probe, and the factor fitted
  /// on operators' costs (CostModel::calibrate).
  double calibrated_on_ms = 0, launch_ms = 0, calibration_scale = 1;
  /// With selection, when the original was kept: why, in one plain
  /// sentence with the measured numbers ("candidate 2 measured 1.059x
  /// faster, but timed again ... is not steady: ..."); "" otherwise.
  std::string kept_because;
  /// The chosen graph's nodes that name how they run
  /// (chosen_implementations), and, when they were checked
  /// (SelectOptions::choices_on), its outputs' largest relative error
  /// against the original's on the reference semantics (-1: not checked).
  std::vector<std::string> implementations;
  double implementations_error = -1;
  /// Why no graph was timed though selection was asked for ("" when they
  /// were): the graph keeps a node quarry cannot run (ops/opaque.h), so the
  /// cost model alone chose.
  std::string not_timed;
  /// With SelectOptions::layouts: each layout tried, in turn; at most one
  /// kept, whose name `model`'s convolutions then carry.
  std::vector<LayoutTrial> layouts;
  /// Whether a layout was kept (the last of `layouts`).
  bool layout_kept() const { return !layouts.empty() && layouts.back().kept; }
};

/// Why the `candidate` runs, timed in turn with the `original` runs, are
/// no win: "" when the candidate's median is `min_gain` below the
/// original's and three quarters of its runs beat that median (a gain the
/// machine's noise could have made is no gain); else the reason, with the
/// medians, as the end of a sentence ("its median, 1.6 ms against ...";
/// `baseline` names what the candidate was timed against).
std::string why_not_a_win(const std::vector<double> &original,
                          const std::vector<double> &candidate, double min_gain,
                          const std::string &baseline = "the original");

/// Searches from `m`, folds the best graphs and keeps the one that
/// measures fastest (see above); `seed` binds weights the model has no
/// values for, as the runtime would.
OptimizeResult
optimize(const Model &m,
         const std::vector<rewrite::Transformation> &transformations,
         CostModel &cost, const SearchOptions &opts,
         const SelectOptions &select, uint64_t seed = 1,
         const std::function<void(const SearchProgress &)> &progress = {});

/// The same, trusting the cost model (no selection).
OptimizeResult
optimize(const Model &m,
         const std::vector<rewrite::Transformation> &transformations,
         CostModel &cost, const SearchOptions &opts, uint64_t seed = 1,
         const std::function<void(const SearchProgress &)> &progress = {});

/// Largest relative output error (runtime::max_relative_error) of `after`
/// against `before`, both run on the reference backend with the same seeded
/// inputs; with `after_on`, `after` runs there instead, as it would be run
/// (its chosen implementations honoured).
double output_error(const Model &before, const Model &after, uint64_t seed,
                    runtime::Backend *after_on = nullptr);

/// What calibration times beside the original: a chain of 64 kernels that
/// each do almost nothing (a sum or a product of 256 floats), whose whole
/// run is nearly all the executor's own cost per kernel
/// (CostModel::calibrate).
Graph launch_probe();

/// Median milliseconds of one inference of `m` on `backend`.
double measure_latency(const Model &m, runtime::Backend &backend,
                       const runtime::MeasureOptions &opts);

/// A PrepareTimer on `backend`: each graph prepared once with seeded
/// inputs, warmed up `warmup` times, then timed run by run.
PrepareTimer backend_timer(runtime::Backend &backend, int warmup,
                           uint64_t seed);

} // namespace quarry::opt
