//===- local_run.h - A whole pipeline run on one machine --------*- C++ -*-===//
#pragma once

#include "quarry/pipeline/config.h"
#include "quarry/pipeline/run_layout.h"

#include <string>

namespace quarry::pipeline {

struct LocalRunOptions {
  std::string quarry;            ///< path of the quarry program
  std::string mpirun = "mpirun"; ///< launches the generation's ranks
  int threads = 0;               ///< for verify, validate, optimize; 0: all
};

/// Runs every step of `c` in order in `run` (prepared with prepare_run):
/// generation under mpirun, the validation shards one after another, then
/// the report. Each step prints its command first. Steps already complete
/// are skipped and the others resume, so running it again after an
/// interruption finishes the run. The report is written even when a step
/// fails; then throws quarry::Error naming the step and its exit status.
void run_locally(const PipelineConfig &c, const RunLayout &run,
                 const LocalRunOptions &o);

} // namespace quarry::pipeline
