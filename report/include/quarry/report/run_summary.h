//===- run_summary.h - What a pipeline run has done so far ----*- C++ -*-===//
//
// A RunSummary gathers the numbers a person asks of a run directory
// (pipeline/run_layout.h): how many candidates the generator kept, how many
// rules were proved and how long proofs took, how many validation cases
// passed, and what the optimizer gained. Each stage is read from the file
// that stage writes; a stage whose file is absent is NotRun (or Running
// when it has started), never an error. A file that exists but is
// malformed is an error naming the file.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/optimizer/report_file.h"
#include "quarry/pipeline/run_layout.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace quarry::report {

enum class StageState { NotRun, Running, Done };

/// "not run", "running", "done".
std::string_view state_name(StageState state);

/// generate/manifest.json (quarry.generate.v1).
struct GenerateSummary {
  StageState state = StageState::NotRun;
  int64_t graphs = 0;
  int64_t reorderings = 0;
  int64_t classes = 0;
  int64_t collisions = 0;
  int64_t candidates = 0;
  int64_t after_renaming = 0;
  int64_t after_subgraph_pruning = 0;
  int64_t ranks = 0;
  int64_t max_ops = 0;
  double seconds = 0;
  int64_t peak_rss_bytes_per_rank = 0;
};

/// verify/report.json (quarry.verify-report.v1). Running while the report
/// is a checkpoint (`complete` false): the counts cover the rules done.
struct VerifySummary {
  StageState state = StageState::NotRun;
  int64_t rules = 0;
  int64_t proved = 0;
  int64_t proved_with_precondition = 0;
  int64_t unproved = 0;
  int64_t refuted = 0;
  double median_seconds = 0;
  double max_seconds = 0;
  double wall_seconds = 0;
  double timeout_s = 0;
  int64_t threads = 0;
  /// Proof time of each rule, in report order.
  std::vector<double> proof_seconds;

  int64_t proved_total() const { return proved + proved_with_precondition; }
};

/// For one operator kind: how many rules use it (in source or target).
struct OperatorRuleCount {
  std::string op;
  int64_t candidates = 0; ///< of candidates.pb (0 when it is absent)
  int64_t proved = 0;     ///< of verify/rules.pb (0 when it is absent)
};

/// How many entailment checks gave each answer.
struct AnswerCounts {
  int64_t entailed = 0;
  int64_t not_entailed = 0;
  int64_t unknown = 0;
  int64_t total() const { return entailed + not_entailed + unknown; }
};

/// One axiom's row of the symbolic sweep.
struct AxiomSweep {
  std::string name;
  int64_t checked = 0;
  int64_t skipped = 0;
  int64_t failed = 0;
  double seconds = 0;
};

/// validate/merged.json (quarry.validate-axioms.v1). Running when only
/// shard files are there, or the merged file is not complete.
struct ValidateSummary {
  StageState state = StageState::NotRun;
  std::vector<std::string> checks; ///< "lemmas", "sweep", ...
  int64_t shards = 0;
  bool problems = false;
  double wall_seconds = 0;
  bool has_sweep = false;
  int64_t cases = 0;
  int64_t checked = 0;
  int64_t skipped = 0;
  int64_t failed = 0;
  int64_t filtered = 0;
  double sweep_seconds = 0; ///< CPU seconds over all chunks
  std::vector<AxiomSweep> axioms;
  std::optional<AnswerCounts> lemmas;
  std::optional<AnswerCounts> redundancy;
  std::optional<std::string> consistency; ///< its answer
};

/// optimize/report.json, as opt::read_report_file reads it.
struct OptimizeSummary : opt::ReportFile {
  StageState state = StageState::NotRun;
  /// Each rule or fusion applied, with how often, in first-use order.
  std::vector<std::pair<std::string, int64_t>> applied_counts;
  int64_t steps = 0; ///< applications in all
};

struct RunSummary {
  std::string run; ///< the run directory
  GenerateSummary generate;
  std::optional<int64_t> candidate_rules; ///< rules in candidates.pb
  VerifySummary verify;
  std::optional<int64_t> proved_rules; ///< rules in verify/rules.pb
  /// Operators used by any candidate or proved rule, in registry order.
  std::vector<OperatorRuleCount> operators;
  ValidateSummary validate;
  OptimizeSummary optimize;
};

/// Reads every stage's file under `run`. Throws quarry::Error when the
/// directory does not exist, or a file exists but is malformed ("PATH: what
/// is wrong").
RunSummary read_run_summary(const pipeline::RunLayout &run);

} // namespace quarry::report
