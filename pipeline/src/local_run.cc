//===- local_run.cc - A whole pipeline run on one machine -----------------===//
#include "quarry/pipeline/local_run.h"

#include "quarry/core/error.h"
#include "quarry/core/shard_spec.h"
#include "quarry/pipeline/process.h"
#include "quarry/pipeline/run_dir.h"
#include "quarry/pipeline/steps.h"

#include <cstdio>
#include <thread>
#include <unistd.h>

namespace quarry::pipeline {

namespace {

/// mpirun's arguments for `ranks` copies of the generation command.
std::vector<std::string> under_mpirun(const LocalRunOptions &o, int ranks,
                                      std::vector<std::string> command) {
  std::vector<std::string> a = {o.mpirun, "-np", std::to_string(ranks)};
  // Open MPI refuses more ranks than cores unless told; a laptop run with
  // more ranks than cores is slower, not wrong.
  if (ranks > static_cast<int>(std::thread::hardware_concurrency()))
    a.push_back("--oversubscribe");
  a.insert(a.end(), command.begin(), command.end());
  return a;
}

/// Open MPI refuses to start as root without these; containers and CI
/// machines commonly run as root.
std::vector<std::string> mpirun_env() {
  if (geteuid() != 0)
    return {};
  return {"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"};
}

void run_step(const std::vector<std::string> &argv,
              const std::vector<std::string> &env, const std::string &what) {
  std::printf("\n== %s\n%s\n", what.c_str(), command_line(argv).c_str());
  std::fflush(stdout);
  const int rc = run_command(argv, env);
  if (rc != 0)
    throw Error("pipeline step " + what + " failed (exit status " +
                std::to_string(rc) + "): " + command_line(argv));
}

} // namespace

void run_locally(const PipelineConfig &c, const RunLayout &run,
                 const LocalRunOptions &o) {
  auto one = [&](Step s, int shard = 0) {
    StepRequest r{s, shard, o.threads};
    return step_command(c, run, r, o.quarry);
  };
  auto report = [&] {
    run_step(one(Step::Report), {}, step_name(Step::Report));
  };
  try {
    for (Step s : steps_of(c)) {
      if (s == Step::Report)
        continue;
      if (auto done = step_already_done(run, c, s)) {
        std::printf("\n== %s: skipped, %s\n", step_name(s), done->c_str());
        continue;
      }
      make_step_dir(run, s);
      if (s == Step::Generate) {
        run_step(under_mpirun(o, c.ranks, one(s)), mpirun_env(), step_name(s));
      } else if (s == Step::VerifyShard || s == Step::ValidateShard) {
        const int n = shards_of(c, s);
        for (int i = 0; i < n; ++i)
          run_step(one(s, i), {},
                   std::string(step_name(s)) + " " + ShardSpec{i, n}.str());
      } else {
        run_step(one(s), {}, step_name(s));
      }
    }
  } catch (const Error &) {
    // What finished is still worth a page; the failure is what is reported.
    try {
      report();
    } catch (const Error &) {
    }
    throw;
  }
  report();
}

} // namespace quarry::pipeline
