//===- config.h - A pipeline run's settings, read from a file ---*- C++ -*-===//
//
// One small file says what a run does, for `quarry pipeline` on one machine
// and slurm/pipeline.sh on a cluster alike:
//
//   # lines are `key = value`; `#` starts a comment
//   generator = taso.gen            # paths are relative to this file
//   max_ops = 2
//   ranks = 2
//   axioms = ../axioms/taso.axioms
//   model = resnext50
//
// Every key has a default except the generator, the axioms and the network
// (model or onnx); docs/PIPELINE.md lists them. Unknown keys and bad values
// are errors naming the file and line, so a typo never runs a different
// experiment than the one written down.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <vector>

namespace quarry::pipeline {

/// The stages a run can do, in the order they run.
enum class Stage { Generate, Verify, Validate, Optimize };

/// "generate", "verify", "validate" or "optimize".
const char *stage_name(Stage s);

struct PipelineConfig {
  std::vector<Stage> stages = {Stage::Generate, Stage::Verify, Stage::Validate,
                               Stage::Optimize};

  // generate
  std::string generator; ///< generator config (docs/GENERATOR.md)
  int max_ops = 2;
  int ranks = 2;
  long long seed = 1;

  // verify
  std::string axioms;
  double verify_timeout = 10; ///< seconds per candidate
  int verify_shards = 1;      ///< parts proved apart, then merged
  std::string verify_known;   ///< proved pack whose derivations need no Z3
  std::string verify_cache;   ///< proof cache directory kept across runs

  // validate
  std::vector<int> validate_sizes = {1, 2};
  std::vector<std::string> validate_checks = {"lemmas", "sweep"};
  int validate_shards = 1;

  // optimize
  std::string model;  ///< a network of the model zoo, or
  std::string onnx;   ///< an ONNX file
  int model_size = 0; ///< input size; 0: the network's own
  std::string rules;  ///< rule pack when the run does not verify
  int optimize_budget = 20;
  double optimize_alpha = 1.05;
  std::string backend = "cpu";

  bool has(Stage s) const;
  /// The optimized network's name: the model, or the ONNX file's stem.
  std::string network_name() const;
};

/// Reads and checks a config file; relative paths in it are made absolute
/// against the file's directory. Throws quarry::Error "FILE:LINE: ...".
PipelineConfig read_pipeline_config(const std::string &path);

/// Reads config text; `name` is used in errors and `base_dir` resolves
/// relative paths.
PipelineConfig parse_pipeline_config(const std::string &text,
                                     const std::string &name,
                                     const std::string &base_dir);

/// The config as text in a fixed key order, every key written: a run
/// directory keeps it (RUN/pipeline.conf) to resume with the same settings.
std::string format_pipeline_config(const PipelineConfig &c);

} // namespace quarry::pipeline
