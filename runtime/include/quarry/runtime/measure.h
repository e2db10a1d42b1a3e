//===- measure.h - Timing graphs and single operators ----------*- C++ -*-===//
//
// A cost is the median wall time of execute() over `runs` timed runs after
// `warmup` untimed ones, with inputs already on the backend's device (as
// TASO measures). Medians resist the odd slow run on a shared machine. An
// operator's cost is its kernel's alone, with its operands in the layout
// they have inside a network (Backend::prepare_operator), without the
// reorders a one-operator graph needs at its borders, and with its weights
// in cache or in memory as inside the network it is costed for.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/runtime/backend.h"
#include "quarry/runtime/op_config.h"

namespace quarry::runtime {

struct MeasureOptions {
  int warmup = 3;
  int runs = 10;
  uint64_t seed = 1; ///< for the random operand values
  /// Attempts at an operator's cost before it is given up as disturbed.
  int attempts = 3;
  /// Whether cached_measure times its canary around each measurement
  /// (cost_cache.h). Off, the runs' own spread alone tells a busy machine:
  /// for tests of the cache itself on a machine other tests keep busy.
  bool canary = true;
  /// Whether each timed run of an operator starts with the device's caches
  /// emptied (Backend::evict_caches): it then reads its weights from
  /// memory, as inside a network whose weights outgrow the caches
  /// (weights_outgrow_cache). Its computed operands still arrive warm
  /// where a reorder lays them out just before it, as they do from the
  /// operator before it in a network. Costs so measured are cached apart.
  bool cold_weights = false;
  /// Cold, the runs of each attempt are spread over this many
  /// preparations, each with its own weights: where they land in memory
  /// changes a kernel's time.
  int cold_placements = 3;
};

/// Whether the weights of `g` together exceed `b`'s last-level cache, so
/// that each of its kernels reads its weights from memory on every run.
bool weights_outgrow_cache(const Backend &b, const Graph &g);

/// Repeated timings of one thing, summarized robustly.
struct Timing {
  /// The mean of the runs within three median absolute deviations of the
  /// median: one slow run (a page fault, another process) does not count.
  double ms = 0;
  double median_ms = 0, min_ms = 0;
  int runs = 0, kept = 0;
  /// Whether the machine let the runs agree: the median within 1.5 times
  /// the fastest run (plus 2 us for timer jitter). A busy machine makes
  /// most runs slow, which no rejection of single outliers repairs.
  bool steady = false;
};

/// Summarizes `samples` (milliseconds; at least one).
Timing summarize(std::vector<double> samples);

/// Median milliseconds per execute() of a prepared graph whose inputs are
/// set.
double median_ms(Executable &e, const MeasureOptions &opts);

/// An operator's cost as its backend runs it.
struct OpCost {
  /// False when every attempt found the machine busy: the cost is the
  /// best seen, and is not to be cached.
  bool steady = true;
  int attempts = 0;
  /// Its kernel, in the layout the backend chose for it (each step timed
  /// alone, reorders left out). For a configuration that names its
  /// implementation (names_implementation), which may take its own layout,
  /// with the reorders into and out of it from the layout its operands
  /// arrive in: what choosing it costs in place in a network.
  double ms = 0;
  /// The reorders its graph needed to take plain operands in and give a
  /// plain result out: what it adds where its neighbours use plain layouts.
  double reorder_ms = 0;
  std::string layout, impl; ///< of the kernel's result, as steps() names them
};

/// Prepares single_op_graph(c) on `b` with random values and times each of
/// its steps, run by run; the kernel's runs are summarized (Timing) and, if
/// not steady, timed again, up to opts.attempts times. With
/// opts.cold_weights each run starts with the caches emptied, and each
/// attempt's runs come from opts.cold_placements preparations.
OpCost measure_op(Backend &b, const OpConfig &c, const MeasureOptions &opts);

/// measure_op(...).ms: what the cost cache keeps for a configuration.
double measure(Backend &b, const OpConfig &c, const MeasureOptions &opts);

} // namespace quarry::runtime
