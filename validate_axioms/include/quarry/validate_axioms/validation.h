//===- validation.h - A validation run and the merge of shards -*- C++ -*-===//
//
// run_validation runs the chosen checks of one shard: the entailment checks
// (shard 0 only: they are a minute of Z3 on one machine) and the shard's
// part of the sweep. Its result file (report.h) doubles as the progress
// record: it is rewritten atomically after the entailment checks and at
// most once a second as sweep chunks finish, and a rerun with the same
// settings reuses everything recorded there, so a killed shard resumes
// without redoing finished chunks.
//
// merge_shards reads every shard's file of a run, checks that they belong
// together and are complete, and combines them.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/validate_axioms/report.h"

#include <functional>
#include <string>
#include <vector>

namespace quarry::validate_axioms {

/// The checks, in the order they run.
const std::vector<std::string> &all_checks();

struct ValidateOptions {
  std::string axioms_path;
  std::string out_dir;
  std::vector<std::string> checks = all_checks();
  SweepOptions sweep;
  EntailmentOptions entailment;
  /// Seconds between saves of the shard's file while the sweep runs (what
  /// a killed run resumes from); 0 saves after every chunk.
  double checkpoint_seconds = 1;
  /// Called (serialized) as sweep chunks finish: done and planned chunks.
  std::function<void(uint64_t, uint64_t, const SweepCounts &)> progress;
};

struct ValidationRun {
  ValidationReport report;
  std::string path;            ///< the shard's result file
  uint64_t resumed_chunks = 0; ///< reused from an earlier, interrupted run
};

/// What decides the checks' outcomes: the prover (Z3 and quarry's
/// encoding, verify::prover_identity()) and the revision of the checks
/// here, raised whenever a change to them can change an outcome. A shard
/// file records it; a file of another checker is not resumed or merged.
std::string checker_identity();

/// Runs one shard and writes its result file; throws quarry::Error for bad
/// input (an unreadable axiom file, an unknown check, a bad shard).
ValidationRun run_validation(const ValidateOptions &opts);

/// Combines DIR/shard-*-of-N.json into DIR/merged.json and returns it.
/// Throws when a shard is missing or incomplete, the files disagree on
/// their settings or axioms, or one was made by another checker.
ValidationRun merge_shards(const std::string &dir);

} // namespace quarry::validate_axioms
