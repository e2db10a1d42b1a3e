//===- run_flags.h - Flags shared by run, cost and optimize ----*- C++ -*-===//
#pragma once

#include "quarry/core/model.h"
#include "quarry/models/onnx.h"
#include "quarry/runtime/backends.h"
#include "quarry/runtime/measure.h"

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

namespace quarry::cli {

struct RunFlags {
  /// A .qg or .onnx file, or a built-in network (cli_grammar.h).
  std::string model;
  std::string backend = "cpu";
  int64_t batch = 0;  ///< 0: as the graph declares
  int64_t size = 0;   ///< a built-in network's size (0: its own)
  int threads = 0;    ///< 0: OMP_NUM_THREADS, else every core
  std::string layout; ///< cpu: convolutions' activation layout ("": auto)
  int streams = 1;    ///< cuda: streams steps run on (0: auto)
  std::string precision = "fp32"; ///< runtime::BackendOptions::precision
  /// cpu: "zero" or "keep" (runtime::BackendOptions::denormals_as_zero).
  std::string denormals = "zero";
  /// ONNX graphs: "name=1x3x224x224" fixes an input's dimensions.
  std::vector<std::string> input_shapes;
  /// ONNX graphs: "name=FILE" fixes a parameter input's value.
  std::vector<std::string> input_values;
  runtime::MeasureOptions measure;
};

/// MODEL, --input-shape, --input-value, --backend, --batch, --size,
/// --threads, --layout, --streams, --precision, --denormals, --runs,
/// --warmup, --seed.
void add_run_flags(CLI::App &cmd, RunFlags &f);
/// --streams N|auto (auto: 0) into `streams`.
void add_streams_flag(CLI::App &cmd, int &streams, const std::string &help);

/// The backend --backend names, on --threads threads.
runtime::BackendOptions run_backend_options(const RunFlags &f);
std::unique_ptr<runtime::Backend> make_run_backend(const RunFlags &f);

/// The options --input-shape and --input-value give an ONNX import.
OnnxImportOptions run_import_options(const RunFlags &f);

/// The graph file (.qg with its weights file, or .onnx with --input-shape
/// applied) or the named network at --size, with --batch applied; errors
/// name the file.
Model read_run_model(const RunFlags &f);

/// The model's file, or "" for a built-in network.
std::string model_file(const RunFlags &f);

/// Seeded random values for every variable, except weights the model
/// carries values for.
Bindings<float> run_values(const Model &m, uint64_t seed);

/// `flag` when given, else $QUARRY_COST_CACHE, else
/// ~/.cache/quarry/op_costs.tsv.
std::string cost_cache_path(const std::string &flag);

/// Prints one line per step (ms, layout, implementation, label) and a
/// closing line with the kernels' and reorders' totals, then `tail`.
void print_steps(const std::vector<runtime::StepInfo> &steps,
                 const std::string &tail = "");

/// What errors about the run's graph are prefixed with.
inline const std::string &run_subject(const RunFlags &f) { return f.model; }

} // namespace quarry::cli
