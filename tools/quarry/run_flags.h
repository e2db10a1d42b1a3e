//===- run_flags.h - Flags shared by quarry run and quarry cost -*- C++ -*-===//
#pragma once

#include "quarry/core/graph.h"
#include "quarry/runtime/measure.h"

#include <CLI/CLI.hpp>

#include <string>

namespace quarry::cli {

struct RunFlags {
  std::string graph, backend = "cpu";
  int64_t batch = 0; ///< 0: as the graph declares
  runtime::MeasureOptions measure;
};

/// --graph, --backend, --batch, --runs, --warmup, --seed.
void add_run_flags(CLI::App &cmd, RunFlags &f);

/// The graph file, with --batch applied; errors name the file.
Graph read_run_graph(const RunFlags &f);

} // namespace quarry::cli
