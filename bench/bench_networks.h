//===- bench_networks.h - The networks a benchmark runs ---------*- C++ -*-===//
#pragma once

#include "quarry/core/split_list.h"
#include "quarry/models/zoo.h"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace quarry::bench {

/// The networks a comma-separated --models flag names, or every benchmark
/// network when it is not given.
inline std::vector<std::string> network_names(const CLI::App &app,
                                              const std::string &models) {
  if (app.count("--models"))
    return split_list(models);
  std::vector<std::string> all;
  for (const ModelInfo &m : model_list())
    all.emplace_back(m.name);
  return all;
}

} // namespace quarry::bench
