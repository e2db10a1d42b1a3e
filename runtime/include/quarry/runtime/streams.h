//===- streams.h - Independent steps on concurrent streams -----*- C++ -*-===//
//
// At batch 1 a GPU runs one small kernel at a time far below its capacity;
// independent branches (Inception's towers, NASNet's cells, ResNeXt's
// groups) can run at once on separate streams, as Rammer schedules them.
// assign_streams() places the steps of a sequential schedule on streams in
// waves: a step's wave is one past the latest wave of the steps it reads
// from, so the steps of one wave are independent of each other. Within a
// wave each step takes the stream of a producer where that stream is still
// free in the wave, else a free one, else shares one.
//
// Steps are issued in waves (StreamPlan::order), each on its stream after
// waiting for the events of its producers on other streams.
// What may then run at the same time is decided by HappensBefore: the
// closure of stream order and those waits. A buffer may pass from one value
// to another only when every step that touched the first happens before the
// step that writes the second (buffer_pool.h).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/runtime/plan.h"

#include <cstdint>
#include <vector>

namespace quarry::runtime {

/// Whether one step of a schedule completes before another starts, on
/// every run: reachability over stream order and cross-stream waits.
class HappensBefore {
public:
  HappensBefore() = default;
  /// For a schedule of `steps` steps, none added yet.
  explicit HappensBefore(int steps);
  /// `preds[s]`: the steps step `s` directly follows (each < s).
  explicit HappensBefore(const std::vector<std::vector<int>> &preds);
  /// Adds step `step`, which directly follows `preds` (each added before).
  void add_step(int step, const std::vector<int> &preds);
  /// Whether step `a` completes before step `b` starts; a == b is false.
  bool operator()(int a, int b) const {
    if (a < 0)
      return b >= 0; // before the first step (the graph's inputs)
    if (b < 0 || a == b)
      return false;
    return (reach_[static_cast<size_t>(b) * words_ + a / 64] >> (a % 64)) & 1;
  }
  int steps() const { return steps_; }

private:
  int steps_ = 0;
  size_t words_ = 0;
  std::vector<uint64_t> reach_; ///< row b: bit a set when a happens before b
};

struct StreamPlan {
  int streams = 1; ///< streams used (at most the number asked)
  /// The steps in the order they are issued: the schedule's on one
  /// stream; by wave on several (the schedule's order within a wave), so
  /// that a stream never holds a step of a later wave before one of an
  /// earlier wave, whatever order the graph listed its branches in.
  std::vector<int> order;
  std::vector<int> stream_of; ///< per step
  std::vector<int> wave_of;   ///< per step
  /// Per step: the steps on other streams whose completion it waits for
  /// (each records an event after it runs), none already implied by the
  /// stream's own order.
  std::vector<std::vector<int>> waits;
  /// Per step: whether another stream waits for it (it records an event).
  std::vector<bool> signals;
  HappensBefore happens_before;
  int waves = 0;
  int widest_wave = 0;
};

/// The steps each step reads a value from (each earlier in the schedule).
std::vector<std::vector<int>>
producers_of(const std::vector<ScheduledStep> &schedule);

/// Places `schedule`'s steps on at most `max_streams` streams (1: all on
/// one, in order). `max_streams` 0 asks for as many as the widest wave
/// needs, up to kMaxAutoStreams.
StreamPlan assign_streams(const std::vector<ScheduledStep> &schedule,
                          int max_streams);
constexpr int kMaxAutoStreams = 8;

} // namespace quarry::runtime
