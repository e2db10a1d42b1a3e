//===- measure.h - Timing graphs and single operators ----------*- C++ -*-===//
//
// A cost is the median wall time of execute() over `runs` timed runs after
// `warmup` untimed ones, with inputs already on the backend's device (as
// TASO measures). Medians resist the odd slow run on a shared machine. An
// operator's cost is its kernel's alone, in the layout the backend runs it
// in, without the reorders a one-operator graph needs at its borders.
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
};

/// Median milliseconds per execute() of a prepared graph whose inputs are
/// set.
double median_ms(Executable &e, const MeasureOptions &opts);

/// An operator's cost as its backend runs it.
struct OpCost {
  /// Its kernel, in the layout the backend chose for it (each step timed
  /// alone, reorders left out).
  double ms = 0;
  /// The reorders its graph needed to take plain operands in and give a
  /// plain result out: what it adds where its neighbours use plain layouts.
  double reorder_ms = 0;
  std::string layout, impl; ///< of the kernel's result, as steps() names them
};

/// Prepares single_op_graph(c) on `b` with random values and times each of
/// its steps.
OpCost measure_op(Backend &b, const OpConfig &c, const MeasureOptions &opts);

/// measure_op(...).ms: what the cost cache keeps for a configuration.
double measure(Backend &b, const OpConfig &c, const MeasureOptions &opts);

} // namespace quarry::runtime
