//===- run_summary.cc - Reading a whole run directory ---------------------===//
#include "quarry/report/run_summary.h"

#include "read_stages.h"

#include "quarry/core/error.h"

#include <filesystem>

namespace quarry::report {

namespace fs = std::filesystem;

std::string_view state_name(StageState state) {
  switch (state) {
  case StageState::NotRun:
    break;
  case StageState::Running:
    return "running";
  case StageState::Done:
    return "done";
  }
  return "not run";
}

namespace {

// A stage makes its directory when it starts and writes its result file
// (manifest, report, merged file) last, so a directory without the file is
// a stage under way, or one that was stopped.
StageState started(const std::string &dir) {
  return fs::is_directory(dir) ? StageState::Running : StageState::NotRun;
}

} // namespace

RunSummary read_run_summary(const pipeline::RunLayout &run) {
  if (!fs::is_directory(run.root()))
    throw Error(run.root() + ": not a run directory (no such directory)");
  RunSummary s;
  s.run = run.root();
  if (fs::exists(run.generate_manifest()))
    s.generate = read_generate(run.generate_manifest());
  else
    s.generate.state = started(run.generate_dir());
  if (fs::exists(run.candidates()))
    s.candidate_rules = count_operators(run.candidates(), false, s.operators);
  if (fs::exists(run.verify_report()))
    s.verify = read_verify(run.verify_report());
  else
    s.verify.state = started(run.verify_dir());
  if (fs::exists(run.proved_rules()))
    s.proved_rules = count_operators(run.proved_rules(), true, s.operators);
  if (fs::exists(run.validate_merged()))
    s.validate = read_validate(run.validate_merged());
  else
    s.validate.state = started(run.validate_dir());
  if (fs::exists(run.optimize_report()))
    s.optimize = read_optimize(run.optimize_report());
  else
    s.optimize.state = started(run.optimize_dir());
  return s;
}

} // namespace quarry::report
