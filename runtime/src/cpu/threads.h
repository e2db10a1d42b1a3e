//===- threads.h - How many threads the cpu backend runs on -----*- C++ -*-===//
//
// Without --threads or OMP_NUM_THREADS, as many threads as the process has
// cores to run on: the CPUs its affinity mask allows, fewer where a cgroup
// quota (a container's cpu.max) grants less time than that. More threads
// than cores leaves OpenMP's barriers waiting on threads the scheduler has
// parked: a run many times slower on a shared node or a CI runner.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace quarry::runtime::cpu {

/// The cores the process may use: its affinity mask's CPUs, capped by the
/// cgroup v2 quota of its cgroup and every parent (rounded up, at least 1).
int usable_cores();

/// A cgroup v2 cpu.max line ("200000 100000", "max 100000") as whole
/// cores, rounded up; nullopt for no limit or a line that says nothing.
std::optional<int> cores_of_cpu_max(const std::string &line);

/// The thread count to run on: `requested` when positive, else
/// OMP_NUM_THREADS when set, else usable_cores().
int thread_count(int requested);

/// Below this many floating-point operations per run, a graph runs on one
/// thread: splitting kernels of a few microseconds costs more in OpenMP's
/// fork and join than it saves.
inline constexpr int64_t kParallelFlops = int64_t{10} << 20;

/// The threads a graph of `flops` per run runs on, of `threads`.
inline int threads_for_flops(int64_t flops, int threads) {
  return flops < kParallelFlops ? 1 : threads;
}

} // namespace quarry::runtime::cpu
