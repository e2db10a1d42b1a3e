//===- progress.h - Generation's progress line -----------------*- C++ -*-===//
//
// Each stage's count and rate ("enumerate: 1200000 graphs, 530000/s,
// 2.3 s"), written through core's ProgressLine: redrawn in place on a
// terminal, a line every half minute in a batch log, and each stage's
// final count always.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/progress_line.h"

#include <chrono>
#include <cstdint>
#include <string>

namespace quarry {

class Progress {
public:
  explicit Progress(bool enabled);
  /// Starts a stage's clock; update() starts it at its first call
  /// otherwise, which makes a rate of whatever the stage did before.
  void begin(const std::string &stage);
  void update(const std::string &stage, uint64_t count, const char *what);
  void done(const std::string &stage, uint64_t count, const char *what);
  /// The closing line: the count and the whole run's time (a rate would
  /// mean nothing there).
  void finish(uint64_t count, const char *what);

private:
  using Clock = std::chrono::steady_clock;
  std::string text(uint64_t count, const char *what) const;
  ProgressLine line_;
  std::string stage_;
  Clock::time_point stage_start_;
  Clock::time_point run_start_ = Clock::now();
};

} // namespace quarry
