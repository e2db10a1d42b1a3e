//===- paired_timing.h - Graphs timed in turn -----------------*- C++ -*-===//
//
// Every speed claim quarry makes compares graphs timed in turn: one run of
// each, round after round, so that a busy spell of the machine falls on
// all alike. Selection (optimize.h) and the benchmarks share this policy.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <functional>
#include <vector>

namespace quarry::opt {

/// A graph whose run takes less than this leaves much of what it read in
/// the caches for its next run, as a graph served run after run does.
/// Timed right after another graph, it would pay for refilling them
/// instead: such a graph runs once untimed before each timed run.
inline constexpr double kWarmBelowMs = 20;

/// The samples of each timer (ms per call), timed in turn, round after
/// round (at least one). Where there are several, a graph that ran in
/// under kWarmBelowMs runs once untimed before each timed run.
std::vector<std::vector<double>>
time_in_turn(const std::vector<std::function<double()>> &timers, int rounds);

/// The `q` quantile of `v` (nearest rank; 0.5 the median); `v` not empty.
double quantile(std::vector<double> v, double q);

} // namespace quarry::opt
