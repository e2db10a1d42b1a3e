//===- timed_in_turn.h - How quarry times things it compares ---*- C++ -*-===//
//
// Every speed claim quarry makes, in selection (optimizer/optimize.h) and in
// every bench/ program, compares things timed in turn: a run of each (or a
// block of runs), round after round, so that a busy spell of the machine
// falls on all alike. This is the one place that policy is written; each
// caller chooses its options, not its own loop.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <chrono>
#include <functional>
#include <utility>
#include <vector>

namespace quarry {

/// A run that takes less than this leaves much of what it read in the
/// caches for its next run, as a graph served run after run does. Timed
/// right after another, it would pay for refilling them instead.
inline constexpr double kWarmBelowMs = 20;

/// How the timers are taken in turn.
struct TurnPolicy {
  /// Rounds timed; in each, every timer runs `block` timed runs in a row.
  int rounds = 15;
  /// Untimed rounds before them (each timer once per round).
  int warmup_rounds = 0;
  int block = 1;
  /// A pause before each block, and then one untimed run: an engine whose
  /// idle worker threads spin after a run keeps them out of the next's
  /// timings.
  double gap_ms = 0;
  /// Every other round takes the timers in reverse order, so each is
  /// first as often as last.
  bool alternate = false;
  /// When positive: after the first round, as many rounds as make the
  /// fastest timer's runs last this long together (at least `rounds`).
  double min_seconds = 0;
  /// The rounds, rounded up to a multiple of this.
  int round_multiple = 1;
};

/// One run of the thing timed, in milliseconds; `round` lets a caller that
/// cycles over several copies of it (sessions, placements) pick one.
using RoundTimer = std::function<double(int round)>;

/// Each timer's samples (ms per run), timed under `policy`. Where there are
/// several timers, one whose last run took under kWarmBelowMs runs once
/// untimed before each timed block.
std::vector<std::vector<double>>
time_in_turn(const std::vector<RoundTimer> &timers, const TurnPolicy &policy);

/// The same, for timers that ignore the round.
std::vector<std::vector<double>>
time_in_turn(const std::vector<std::function<double()>> &timers,
             const TurnPolicy &policy);
/// The same, over `rounds` rounds and otherwise the default policy.
std::vector<std::vector<double>>
time_in_turn(const std::vector<std::function<double()>> &timers, int rounds);

/// The milliseconds `f()` takes.
template <class F> double time_ms(F &&f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - t0)
      .count();
}

/// The `q` quantile of `v` (nearest rank; 0.5 the median); 0 for none.
double quantile(std::vector<double> v, double q);
inline double median(std::vector<double> v) {
  return quantile(std::move(v), 0.5);
}

} // namespace quarry
