//===- steps.h - The commands a pipeline run is made of ---------*- C++ -*-===//
//
// Each stage is one or more steps, each step one quarry command over the run
// directory. `quarry pipeline` runs them in order on one machine; the SLURM
// scripts run each as `quarry pipeline step NAME --run RUN`, which executes
// exactly the same command. So a run gives the same files whichever way it
// ran, and any step can be re-run by hand.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/pipeline/config.h"
#include "quarry/pipeline/run_layout.h"

#include <optional>
#include <string>
#include <vector>

namespace quarry::pipeline {

enum class Step {
  Generate,      ///< quarry generate, on `ranks` MPI ranks
  Candidates,    ///< the candidates exported as a rule pack
  VerifyShard,   ///< prove one shard of them (resumes by itself)
  VerifyMerge,   ///< the shards' proofs merged into the proved pack
  ValidateShard, ///< one shard of the axiom validation
  ValidateMerge, ///< the shards merged
  Optimize,      ///< optimize the network with the proved rules
  Report,        ///< summary.json and report.html
};

/// The step's name on the command line ("validate-shard", ...).
const char *step_name(Step s);
/// The step named `name`; throws quarry::Error listing the names.
Step step_named(const std::string &name);

/// The steps of a run's stages, in order (Report last). VerifyShard and
/// ValidateShard stand for every shard.
std::vector<Step> steps_of(const PipelineConfig &c);

struct StepRequest {
  Step step = Step::Report;
  int shard = 0;   ///< VerifyShard, ValidateShard: which one
  int threads = 0; ///< the shards and Optimize; 0: the default
};

/// How many shards a sharded step has (1 for the others).
int shards_of(const PipelineConfig &c, Step s);

/// The command of one step; argv[0] is `quarry` (the caller's path to it).
/// Generate is the command of one rank: run it under mpirun or srun.
std::vector<std::string> step_command(const PipelineConfig &c,
                                      const RunLayout &run,
                                      const StepRequest &r,
                                      const std::string &quarry);

/// When the step's output is already complete, why (a line for the log);
/// such a step is skipped. Steps whose commands resume by themselves are
/// always run.
std::optional<std::string> step_already_done(const RunLayout &run,
                                             const PipelineConfig &c, Step s);

} // namespace quarry::pipeline
