//===- cost_fixture.h - A cost model on the cpu backend for tests -*- C++
//-*-===//
#pragma once

#include "quarry/optimizer/cost_model.h"
#include "quarry/runtime/backends.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <unistd.h>

namespace quarry::opt::test {

/// The cpu backend with a cost cache file of this test process, measured
/// with few runs: tests need plausible costs, not precise ones.
struct CpuCosts {
  std::unique_ptr<runtime::Backend> backend = runtime::make_backend("cpu");
  runtime::CostCache cache{::testing::TempDir() + "quarry_opt_costs_" +
                           std::to_string(getpid()) + ".tsv"};
  CostModel model{*backend, cache, runtime::MeasureOptions{1, 3, 1}};
};

} // namespace quarry::opt::test
