//===- progress_line.h - How far a long command is, on stderr --*- C++ -*-===//
//
// Generation, verification, minimising and the axiom sweep run for minutes
// to hours, on a terminal or in a batch job. On a terminal their progress
// is one line redrawn in place, at most four times a second. Elsewhere (a
// SLURM log, a file) a redrawn line would pile up into one endless line, so
// a plain line is written every half minute instead, and the last state of
// a stage once any was, so a long run's log ends with its totals.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <chrono>
#include <string>

namespace quarry {

class ProgressLine {
public:
  /// A disabled line prints nothing (--quiet, or an MPI rank other than 0).
  explicit ProgressLine(bool enabled = true);
  /// Ends a line left open on the terminal.
  ~ProgressLine();
  ProgressLine(const ProgressLine &) = delete;
  ProgressLine &operator=(const ProgressLine &) = delete;

  /// Whether show() would print now: lets a caller skip formatting.
  bool due() const;
  /// Shows `text` when due, or at once when `final` (the end of a stage:
  /// on a terminal the line then stays, and the next starts below it; in a
  /// log only once a line was due, so a short run writes none).
  void show(const std::string &text, bool final = false);
  /// A line of its own between progress lines (a phase starting).
  void note(const std::string &text);
  /// Ends a line left open on the terminal, before other output.
  void finish();

private:
  using Clock = std::chrono::steady_clock;

  bool enabled_;
  bool tty_;
  bool open_ = false;      ///< a redrawn line not yet ended
  bool wrote_ = false;     ///< a line was written
  Clock::time_point last_; ///< the last line, or the start
};

} // namespace quarry
