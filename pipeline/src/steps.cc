//===- steps.cc - The command line of each pipeline step ------------------===//
#include "quarry/pipeline/steps.h"

#include "quarry/core/error.h"
#include "quarry/core/split_list.h"

#include <filesystem>
#include <sstream>

namespace quarry::pipeline {

namespace fs = std::filesystem;

namespace {

struct StepInfo {
  Step step;
  const char *name;
};

constexpr StepInfo kSteps[] = {
    {Step::Generate, "generate"},
    {Step::Candidates, "candidates"},
    {Step::Verify, "verify"},
    {Step::ValidateShard, "validate-shard"},
    {Step::ValidateMerge, "validate-merge"},
    {Step::Optimize, "optimize"},
    {Step::Report, "report"},
};

std::string number(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

} // namespace

const char *step_name(Step s) {
  for (const StepInfo &i : kSteps)
    if (i.step == s)
      return i.name;
  return "?";
}

Step step_named(const std::string &name) {
  std::string names;
  for (const StepInfo &i : kSteps) {
    if (name == i.name)
      return i.step;
    names += std::string(names.empty() ? "" : ", ") + i.name;
  }
  throw Error("unknown step '" + name + "' (steps: " + names + ")");
}

std::vector<Step> steps_of(const PipelineConfig &c) {
  std::vector<Step> out;
  if (c.has(Stage::Generate))
    out.insert(out.end(), {Step::Generate, Step::Candidates});
  if (c.has(Stage::Verify))
    out.push_back(Step::Verify);
  if (c.has(Stage::Validate))
    out.insert(out.end(), {Step::ValidateShard, Step::ValidateMerge});
  if (c.has(Stage::Optimize))
    out.push_back(Step::Optimize);
  out.push_back(Step::Report);
  return out;
}

std::vector<std::string> step_command(const PipelineConfig &c,
                                      const RunLayout &run,
                                      const StepRequest &r,
                                      const std::string &quarry) {
  std::vector<std::string> a = {quarry};
  auto threads = [&] {
    if (r.threads > 0)
      a.insert(a.end(), {"--threads", std::to_string(r.threads)});
  };
  switch (r.step) {
  case Step::Generate:
    a.insert(a.end(), {"generate", "--config", c.generator, "--max-ops",
                       std::to_string(c.max_ops), "--seed",
                       std::to_string(c.seed), "--out", run.generate_dir()});
    break;
  case Step::Candidates:
    a.insert(a.end(), {"candidates", "export", run.generate_dir(), "--out",
                       run.candidates()});
    break;
  case Step::Verify:
    a.insert(a.end(),
             {"verify", "--axioms", c.axioms, "--rules", run.candidates(),
              "--out", run.proved_rules(), "--report", run.verify_report(),
              "--timeout", number(c.verify_timeout)});
    // The report is also the record of what is proved so far.
    if (fs::exists(run.verify_report()))
      a.push_back("--resume");
    threads();
    break;
  case Step::ValidateShard:
    if (r.shard < 0 || r.shard >= c.validate_shards)
      throw Error("shard " + std::to_string(r.shard) + " is not in 0.." +
                  std::to_string(c.validate_shards - 1));
    a.insert(a.end(),
             {"validate-axioms", "--axioms", c.axioms, "--sizes",
              join_list(c.validate_sizes), "--checks",
              join_list(c.validate_checks), "--shard",
              std::to_string(r.shard) + "/" + std::to_string(c.validate_shards),
              "--out", run.validate_dir()});
    threads();
    break;
  case Step::ValidateMerge:
    a.insert(a.end(), {"validate-axioms", "merge", run.validate_dir()});
    break;
  case Step::Optimize:
    a.push_back("optimize");
    if (!c.model.empty())
      a.insert(a.end(), {"--model", c.model});
    else
      a.insert(a.end(), {"--onnx", c.onnx});
    if (c.model_size > 0)
      a.insert(a.end(), {"--size", std::to_string(c.model_size)});
    a.insert(a.end(),
             {"--rules", c.rules.empty() ? run.proved_rules() : c.rules,
              "--budget", std::to_string(c.optimize_budget), "--alpha",
              number(c.optimize_alpha), "--backend", c.backend, "--cost-cache",
              run.optimize_dir() + "/costs.tsv", "--out",
              run.optimized_model(c.network_name()), "--report",
              run.optimize_report(), "--check"});
    threads();
    break;
  case Step::Report:
    a.insert(a.end(), {"report", run.root()});
    break;
  }
  return a;
}

std::optional<std::string> step_already_done(const RunLayout &run,
                                             const PipelineConfig &c, Step s) {
  switch (s) {
  case Step::Generate:
    // A finished run's manifest; `quarry generate` would say the same, but
    // only after starting every rank.
    if (fs::exists(run.generate_manifest()))
      return "generation finished earlier (" + run.generate_manifest() + ")";
    return std::nullopt;
  case Step::Optimize:
    // Written last, after the network; a search is not worth repeating.
    if (fs::exists(run.optimize_report()) &&
        fs::exists(run.optimized_model(c.network_name())))
      return "optimized earlier (" + run.optimize_report() + ")";
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

} // namespace quarry::pipeline
