//===- run_dir.h - Starting or resuming a run directory ---------*- C++ -*-===//
#pragma once

#include "quarry/pipeline/config.h"
#include "quarry/pipeline/run_layout.h"
#include "quarry/pipeline/steps.h"

#include <string>

namespace quarry::pipeline {

/// Creates the run directory for `c` or checks that an existing one was
/// started with the same settings (RUN/pipeline.conf), so that resuming
/// never mixes two experiments; writes RUN/pipeline.conf and
/// RUN/pipeline.env. Throws quarry::Error naming pipeline.conf when the
/// settings differ.
void prepare_run(const PipelineConfig &c, const RunLayout &run);

/// Creates the folder the step writes into. Folders appear only as their
/// stages start, so a report can tell a stage not run from one under way.
void make_step_dir(const RunLayout &run, Step s);

/// The settings a prepared run directory was started with.
PipelineConfig read_run_config(const RunLayout &run);

/// RUN/pipeline.env's text: shell assignments of what the SLURM scripts
/// need to submit the jobs (QUARRY_RUN, QUARRY_STAGES, QUARRY_RANKS,
/// QUARRY_VALIDATE_SHARDS).
std::string run_env(const PipelineConfig &c, const RunLayout &run);

} // namespace quarry::pipeline
