//===- roofline.h - How fast this machine could run a network ------------===//
//
// A network cannot run faster than its arithmetic at the core's peak or
// its weights streamed at the memory's bandwidth (batch 1: each weight is
// read once per inference). Both limits are measured on the machine the
// benchmark runs on, at the thread count it times:
//   peak:      independent vector fused multiply-adds in registers on
//              every thread, at the widest width the core has (AVX-512 or
//              AVX2): what no kernel's arithmetic can beat;
//   matmul:    a 1024x1024 by 1024x1024 product in quarry's cpu backend
//              (oneDNN's best kernel), beside it: how much of the peak a
//              library reaches on this core;
//   bandwidth: a STREAM triad (a = b + s c) over three 64 MiB arrays,
//              counting the bytes read and written.
// Another tenant of a shared machine can only make a limit look lower
// than it is, never higher: each is the best of several tries, and a
// benchmark measures them again after its runs and keeps the better
// (Machine::best_of). A network whose weights fit in the last-level cache
// can beat the memory limit run after run; `bound_by` says which limit is
// the larger.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/graph.h"

#include <nlohmann/json.hpp>

#include <cstdint>

namespace quarry::bench {

struct Machine {
  int threads = 1;
  double peak_gflops = 0;   ///< floating-point operations per ns
  double matmul_gflops = 0; ///< the same, of oneDNN's 1024^3 product
  double bandwidth_gbs = 0; ///< bytes per ns

  /// Each limit the larger of this one's and `other`'s (same threads).
  Machine best_of(const Machine &other) const;
  nlohmann::json to_json() const;
};

/// Measures the limits at `threads` OpenMP threads.
Machine measure_machine(int threads);

/// What one evaluation of a graph costs: its FLOPs and its weights' bytes.
struct Work {
  double flops = 0;
  double weight_bytes = 0;
};
Work work_of(const Graph &g);

/// The roofline of `w` on `m`, beside measured times in milliseconds:
/// FLOPs, weight bytes, each limit's time, the larger, and each engine's
/// time over it.
nlohmann::json roofline(const Work &w, const Machine &m, double quarry_ms,
                        double onnxruntime_ms);

} // namespace quarry::bench
