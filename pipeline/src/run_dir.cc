//===- run_dir.cc - Starting or resuming a run directory ------------------===//
#include "quarry/pipeline/run_dir.h"

#include "quarry/core/error.h"
#include "quarry/core/file_io.h"
#include "quarry/core/split_list.h"
#include "quarry/pipeline/process.h"

#include <filesystem>
#include <sstream>

namespace quarry::pipeline {

namespace fs = std::filesystem;

namespace {

/// The first line where two settings texts differ, for the error message.
std::string first_difference(const std::string &a, const std::string &b) {
  std::istringstream ia(a), ib(b);
  std::string la, lb;
  while (true) {
    const bool more_a = static_cast<bool>(std::getline(ia, la));
    const bool more_b = static_cast<bool>(std::getline(ib, lb));
    if (!more_a && !more_b)
      return "";
    if (!more_a)
      la.clear();
    if (!more_b)
      lb.clear();
    if (la != lb)
      return "'" + la + "' there, '" + lb + "' now";
  }
}

void make_dir(const std::string &dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    throw Error(dir + ": cannot create the directory: " + ec.message());
}

} // namespace

void prepare_run(const PipelineConfig &c, const RunLayout &run) {
  const std::string settings = format_pipeline_config(c);
  if (fs::exists(run.config())) {
    const std::string before = read_file_bytes(run.config());
    if (before != settings)
      throw Error(run.config() + ": the run was started with other settings (" +
                  first_difference(before, settings) +
                  "); give a new run directory");
  }
  make_dir(run.root());
  make_dir(run.logs_dir());
  write_file_atomic(run.config(), settings);
  write_file_atomic(run.env(), run_env(c, run));
}

void make_step_dir(const RunLayout &run, Step s) {
  switch (s) {
  case Step::VerifyShard:
  case Step::VerifyMerge:
    make_dir(run.verify_dir());
    make_dir(run.verify_shards_dir());
    break;
  case Step::ValidateShard:
  case Step::ValidateMerge:
    make_dir(run.validate_dir());
    break;
  case Step::Optimize:
    make_dir(run.optimize_dir());
    break;
  default: // generate makes its own; the others write into RUN
    break;
  }
}

PipelineConfig read_run_config(const RunLayout &run) {
  if (!fs::exists(run.config()))
    throw Error(run.config() + ": not found; is " + run.root() +
                " a run directory (made by quarry pipeline or "
                "slurm/pipeline.sh)?");
  return parse_pipeline_config(read_file_bytes(run.config()), run.config(),
                               run.root());
}

std::string run_env(const PipelineConfig &c, const RunLayout &run) {
  std::vector<std::string> stages;
  for (Stage s : c.stages)
    stages.push_back(stage_name(s));
  std::ostringstream out;
  out << "# written by quarry pipeline prepare; read by slurm/pipeline.sh\n"
      << "QUARRY_RUN=" << command_line({fs::absolute(run.root()).string()})
      << "\n"
      << "QUARRY_STAGES=" << join_list(stages) << "\n"
      << "QUARRY_RANKS=" << c.ranks << "\n"
      << "QUARRY_VERIFY_SHARDS=" << c.verify_shards << "\n"
      << "QUARRY_VALIDATE_SHARDS=" << c.validate_shards << "\n";
  return out.str();
}

} // namespace quarry::pipeline
