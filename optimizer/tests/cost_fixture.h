//===- cost_fixture.h - A cpu cost model for tests -------------*- C++ -*-===//
#pragma once

#include "quarry/models/stats.h"
#include "quarry/optimizer/cost_model.h"
#include "quarry/runtime/backends.h"
#include "quarry/testing/scratch_dir.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace quarry::opt::test {

/// The cpu backend with a cost cache file of this test, measured
/// with few runs: tests need plausible costs, not precise ones.
struct CpuCosts {
  std::unique_ptr<runtime::Backend> backend = runtime::make_backend("cpu");
  quarry::testing::ScratchDir scratch;
  runtime::CostCache cache{scratch.file("costs.tsv")};
  // No canary: these tests are about what the model counts, and other
  // tests keep the machine busy (runtime/cost_cache.h).
  CostModel model{*backend, cache, runtime::MeasureOptions{1, 3, 1, 3, false}};
};

/// A cost that does not vary from run to run, shaped like the cpu
/// backend's: a fixed 10 us per library call plus 1 ns per FLOP, where
/// split and reshape (plain copies, or nothing, in the runtime) cost only
/// their elements. For searches whose outcome a test asserts.
inline double launch_cost(const runtime::OpConfig &c) {
  const int64_t flops = graph_stats(runtime::single_op_graph(c)).flops;
  if (c.kind == OpKind::Split || c.kind == OpKind::Reshape)
    return 1e-7 * static_cast<double>(flops);
  return 0.01 + 1e-6 * static_cast<double>(flops);
}

} // namespace quarry::opt::test
