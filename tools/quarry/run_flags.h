//===- run_flags.h - Flags shared by quarry run and quarry cost -*- C++ -*-===//
#pragma once

#include "quarry/models/model.h"
#include "quarry/runtime/measure.h"

#include <CLI/CLI.hpp>

#include <string>

namespace quarry::cli {

struct RunFlags {
  std::string graph, model, backend = "cpu";
  int64_t batch = 0; ///< 0: as the graph declares
  runtime::MeasureOptions measure;
};

/// --graph | --model, --backend, --batch, --runs, --warmup, --seed.
void add_run_flags(CLI::App &cmd, RunFlags &f);

/// The graph file (.qg with its weights file, or .onnx) or the named
/// network, with --batch applied; errors name the file.
Model read_run_model(const RunFlags &f);

/// Seeded random values for every variable, except weights the model
/// carries values for.
Bindings<float> run_values(const Model &m, uint64_t seed);

/// `flag` when given, else $QUARRY_COST_CACHE, else
/// ~/.cache/quarry/op_costs.tsv.
std::string cost_cache_path(const std::string &flag);

/// What errors about the run's graph are prefixed with.
inline const std::string &run_subject(const RunFlags &f) {
  return f.graph.empty() ? f.model : f.graph;
}

} // namespace quarry::cli
