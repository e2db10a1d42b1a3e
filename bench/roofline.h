//===- roofline.h - How fast this machine could run a network ------------===//
//
// A network cannot run faster than its arithmetic at the core's peak or
// its weights streamed at the memory's bandwidth (batch 1: each weight is
// read once per inference). Both limits are measured on the machine the
// benchmark runs on, at the thread count it times:
//   peak:      a 1024x1024 by 1024x1024 product in quarry's cpu backend
//              (oneDNN's best kernel; what any network's products could
//              reach at most);
//   bandwidth: a STREAM triad (a = b + s c) over three 64 MiB arrays,
//              counting the bytes read and written.
// A network whose weights fit in the last-level cache can beat the memory
// limit run after run; `bound_by` says which limit is the larger.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/graph.h"

#include <nlohmann/json.hpp>

namespace quarry::bench {

struct Machine {
  int threads = 1;
  double peak_gflops = 0;   ///< floating-point operations per ns
  double bandwidth_gbs = 0; ///< bytes per ns
};

/// Measures both limits at `threads` OpenMP threads.
Machine measure_machine(int threads);

/// The roofline of one evaluation of `g` on `m`, beside measured times in
/// milliseconds: FLOPs, weight bytes, each limit's time, the larger, and
/// each engine's time over it.
nlohmann::json roofline(const Graph &g, const Machine &m, double quarry_ms,
                        double onnxruntime_ms);

} // namespace quarry::bench
