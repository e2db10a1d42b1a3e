//===- progress.h - A one-line progress display ------------------*- C++
//-*-===//
//
// Rewrites one stderr line at most four times a second while a stage runs
// ("enumerate: 1.2M graphs, 530k/s"), only when enabled and stderr is a
// terminal, so batch logs stay clean.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace quarry {

class Progress {
public:
  explicit Progress(bool enabled);
  void update(const std::string &stage, uint64_t count, const char *what);
  void done(const std::string &stage, uint64_t count, const char *what);
  void note(const std::string &text);

private:
  using Clock = std::chrono::steady_clock;
  void print(const std::string &stage, uint64_t count, const char *what,
             bool final);
  bool enabled_;
  std::string stage_;
  Clock::time_point stage_start_, last_;
};

} // namespace quarry
