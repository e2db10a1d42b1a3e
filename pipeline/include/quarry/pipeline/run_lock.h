//===- run_lock.h - One local run per run directory at a time ---*- C++ -*-===//
#pragma once

#include "quarry/pipeline/run_layout.h"

namespace quarry::pipeline {

/// Holds RUN/.lock (flock) while a local run works in RUN, so a second
/// `quarry pipeline` on the same directory is refused instead of writing
/// the same files. The lock is inherited by the steps' processes: when a
/// run is killed but its MPI ranks linger, the directory stays locked until
/// they are gone too.
class RunLock {
public:
  /// Throws quarry::Error when another run holds the directory.
  explicit RunLock(const RunLayout &run);
  ~RunLock();
  RunLock(const RunLock &) = delete;
  RunLock &operator=(const RunLock &) = delete;

private:
  int fd_ = -1;
};

} // namespace quarry::pipeline
