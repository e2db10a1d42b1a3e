//===- run_layout.h - Where each stage of a pipeline run writes -*- C++ -*-===//
//
// One run directory holds everything a pipeline run makes, locally
// (`quarry pipeline`) or as SLURM jobs (slurm/pipeline.sh). Both use these
// paths, so a run started one way can be resumed, inspected or reported the
// other way. docs/ARCHITECTURE.md ("Pipeline runs") lists the same layout.
//
//   RUN/pipeline.conf         the settings, normalised (paths absolute)
//   RUN/pipeline.env          the same as shell assignments, for sbatch jobs
//   RUN/generate/             quarry generate: manifest.json, shards
//   RUN/candidates.pb         the candidates as an unverified rule pack
//   RUN/verify/rules.pb       the proved rule pack
//   RUN/verify/report.json    outcome and proof time per candidate
//   RUN/verify/shards/        shard-I-of-N.json per verify shard
//   RUN/validate/             shard-I-of-N.json, merged.json
//   RUN/optimize/NAME.onnx    the optimized network
//   RUN/optimize/report.json  applied rules, cost and latency before/after
//   RUN/summary.json          counts per stage (quarry report)
//   RUN/report.html           the same as a page with plots (quarry report)
//   RUN/logs/                 job logs (SLURM runs)
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>

namespace quarry::pipeline {

class RunLayout {
public:
  explicit RunLayout(std::string root) : root_(std::move(root)) {}

  const std::string &root() const { return root_; }
  std::string config() const { return at("pipeline.conf"); }
  std::string env() const { return at("pipeline.env"); }
  std::string generate_dir() const { return at("generate"); }
  std::string generate_manifest() const { return at("generate/manifest.json"); }
  std::string candidates() const { return at("candidates.pb"); }
  std::string verify_dir() const { return at("verify"); }
  std::string proved_rules() const { return at("verify/rules.pb"); }
  std::string verify_report() const { return at("verify/report.json"); }
  std::string verify_shards_dir() const { return at("verify/shards"); }
  std::string validate_dir() const { return at("validate"); }
  std::string validate_merged() const { return at("validate/merged.json"); }
  std::string optimize_dir() const { return at("optimize"); }
  std::string optimized_model(const std::string &name) const {
    return at("optimize/" + name + ".onnx");
  }
  std::string optimize_report() const { return at("optimize/report.json"); }
  std::string summary() const { return at("summary.json"); }
  std::string report_html() const { return at("report.html"); }
  std::string logs_dir() const { return at("logs"); }

private:
  std::string at(const std::string &relative) const {
    return root_ + "/" + relative;
  }
  std::string root_;
};

} // namespace quarry::pipeline
