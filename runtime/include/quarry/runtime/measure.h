//===- measure.h - Timing graphs and single operators ----------*- C++ -*-===//
//
// A cost is the median wall time of execute() over `runs` timed runs after
// `warmup` untimed ones, with inputs already on the backend's device (as
// TASO measures). Medians resist the odd slow run on a shared machine.
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

/// Prepares single_op_graph(c) on `b` with random values and times it.
double measure(Backend &b, const OpConfig &c, const MeasureOptions &opts);

} // namespace quarry::runtime
