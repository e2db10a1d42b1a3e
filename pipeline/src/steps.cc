//===- steps.cc - The command line of each pipeline step ------------------===//
#include "quarry/pipeline/steps.h"

#include "quarry/core/error.h"
#include "quarry/core/shard_spec.h"
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
    {Step::VerifyShard, "verify-shard"},
    {Step::VerifyMerge, "verify-merge"},
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
    out.insert(out.end(), {Step::VerifyShard, Step::VerifyMerge});
  if (c.has(Stage::Validate))
    out.insert(out.end(), {Step::ValidateShard, Step::ValidateMerge});
  if (c.has(Stage::Optimize))
    out.push_back(Step::Optimize);
  out.push_back(Step::Report);
  return out;
}

int shards_of(const PipelineConfig &c, Step s) {
  return s == Step::VerifyShard     ? c.verify_shards
         : s == Step::ValidateShard ? c.validate_shards
                                    : 1;
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
  const int shards = shards_of(c, r.step);
  if (r.shard < 0 || r.shard >= shards)
    throw Error("shard " + std::to_string(r.shard) + " is not in 0.." +
                std::to_string(shards - 1));
  const std::string shard = ShardSpec{r.shard, shards}.str();
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
  case Step::VerifyShard:
    // A shard's file is also the record of what it proved so far.
    a.insert(a.end(),
             {"verify", "--axioms", c.axioms, "--rules", run.candidates(),
              "--shard", shard, "--out", run.verify_shards_dir(), "--timeout",
              number(c.verify_timeout)});
    if (!c.verify_known.empty())
      a.insert(a.end(), {"--known", c.verify_known});
    if (!c.verify_cache.empty())
      a.insert(a.end(), {"--proof-cache", c.verify_cache});
    threads();
    break;
  case Step::VerifyMerge:
    a.insert(a.end(), {"verify", "merge", run.verify_shards_dir(), "--out",
                       run.proved_rules(), "--json", run.verify_report()});
    break;
  case Step::ValidateShard:
    a.insert(a.end(), {"validate-axioms", "--axioms", c.axioms, "--sizes",
                       join_list(c.validate_sizes), "--checks",
                       join_list(c.validate_checks), "--shard", shard, "--out",
                       run.validate_dir()});
    threads();
    break;
  case Step::ValidateMerge:
    a.insert(a.end(), {"validate-axioms", "merge", run.validate_dir()});
    break;
  case Step::Optimize:
    a.insert(a.end(), {"optimize", c.model.empty() ? c.onnx : c.model});
    if (c.model_size > 0)
      a.insert(a.end(), {"--size", std::to_string(c.model_size)});
    a.insert(a.end(),
             {"--rules", c.rules.empty() ? run.proved_rules() : c.rules,
              "--budget", std::to_string(c.optimize_budget), "--alpha",
              number(c.optimize_alpha), "--backend", c.backend, "--cost-cache",
              run.optimize_dir() + "/costs.tsv", "--out",
              run.optimized_model(c.network_name()), "--json",
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
