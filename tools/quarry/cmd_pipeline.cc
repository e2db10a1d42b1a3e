//===- cmd_pipeline.cc - `quarry pipeline`: a whole run
//---------------------===//
//
//   quarry pipeline --config run.conf --out RUN [--threads N] [--mpirun CMD]
//   quarry pipeline prepare --config run.conf --out RUN
//   quarry pipeline step NAME --run RUN [--shard I] [--threads N]
//
// The first runs every stage on this machine (generation under mpirun); run
// it again to resume. `prepare` and `step` are what slurm/pipeline.sh and the
// sbatch scripts use: prepare checks the settings and lays out RUN, and step
// runs one step's command, the same command the local run uses.
//
//===----------------------------------------------------------------------===//
#include "cli_grammar.h"
#include "commands.h"

#include "quarry/core/error.h"
#include "quarry/pipeline/config.h"
#include "quarry/pipeline/local_run.h"
#include "quarry/pipeline/process.h"
#include "quarry/pipeline/run_dir.h"
#include "quarry/pipeline/run_lock.h"
#include "quarry/pipeline/steps.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

namespace quarry::cli {

namespace {

using namespace quarry::pipeline;

struct PipelineCliOptions {
  std::string config, out, run, step;
  LocalRunOptions local;
  int shard = 0;
};

/// Run directories are absolute: jobs may start elsewhere.
RunLayout layout_of(const std::string &dir) {
  if (dir.empty())
    throw UsageError("give the run directory (--out RUN)");
  return RunLayout(std::filesystem::absolute(dir).lexically_normal().string());
}

RunLayout prepared(const PipelineCliOptions &o, PipelineConfig &c) {
  if (o.config.empty())
    throw UsageError("give the settings (--config FILE)");
  c = read_pipeline_config(o.config);
  RunLayout run = layout_of(o.out);
  prepare_run(c, run);
  return run;
}

/// Under srun every rank runs the step; one of them speaks.
bool first_rank() {
  const char *rank = std::getenv("SLURM_PROCID");
  return rank == nullptr || std::string(rank) == "0";
}

void run_step(const PipelineCliOptions &o) {
  RunLayout run = layout_of(o.run);
  const PipelineConfig c = read_run_config(run);
  const Step s = step_named(o.step);
  if (auto done = step_already_done(run, c, s)) {
    if (first_rank())
      std::printf("%s: skipped, %s\n", o.step.c_str(), done->c_str());
    return;
  }
  make_step_dir(run, s);
  const std::vector<std::string> argv =
      step_command(c, run, {s, o.shard, o.local.threads}, self_executable());
  if (first_rank()) {
    std::printf("+ %s\n", command_line(argv).c_str());
    std::fflush(stdout);
  }
  exec_command(argv);
}

} // namespace

void register_pipeline_command(CLI::App &app) {
  auto o = std::make_shared<PipelineCliOptions>();
  CLI::App *p = app.add_subcommand(
      "pipeline", "Run generate, verify, validate-axioms, optimize and report "
                  "into one run directory (again to resume)");
  p->add_option("--config", o->config, "Settings file (docs/PIPELINE.md)");
  p->add_option("--out", o->out, "Run directory");
  p->add_option("--threads", o->local.threads,
                "Threads of verify, validation and optimize (0: all)");
  p->add_option("--mpirun", o->local.mpirun,
                "Launcher of the generation's ranks");

  CLI::App *prep = p->add_subcommand(
      "prepare", "Check the settings and lay out the run directory");
  prep->add_option("--config", o->config, "Settings file")->required();
  prep->add_option("--out", o->out, "Run directory")->required();
  prep->callback([o] {
    PipelineConfig c;
    const RunLayout run = prepared(*o, c);
    std::printf("%s\n", run.env().c_str());
  });

  CLI::App *step = p->add_subcommand(
      "step", "Run one step of a prepared run (as the SLURM jobs do)");
  step->add_option("NAME", o->step,
                   "generate, candidates, verify-shard, verify-merge, "
                   "validate-shard, validate-merge, optimize or report")
      ->required();
  step->add_option("--run", o->run, "Run directory")->required();
  step->add_option("--shard", o->shard,
                   "verify-shard, validate-shard: which shard");
  step->add_option("--threads", o->local.threads, "Threads (0: default)");
  step->callback([o] { run_step(*o); });

  p->callback([o, prep, step] {
    if (prep->parsed() || step->parsed())
      return;
    PipelineConfig c;
    const RunLayout run = prepared(*o, c);
    const RunLock lock(run);
    o->local.quarry = self_executable();
    run_locally(c, run, o->local);
  });
}

} // namespace quarry::cli
