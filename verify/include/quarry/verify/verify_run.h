//===- verify_run.h - A whole `quarry verify` run -------------*- C++ -*-===//
//
// What one run of `quarry verify` does with its rules: take the results an
// interrupted run left in its report (resume) and those the proof cache
// knows, prove the rest (a cheaper proof first when one is offered, then
// Z3), and rewrite the report after every rule, so a killed run loses only
// the rules in flight. A sharded run does the same for its part of the
// rules (core/shard.h); merge_shard_reports puts the parts together.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/shard_spec.h"
#include "quarry/verify/report.h"

#include <functional>
#include <string>
#include <vector>

namespace quarry::verify {

struct RunProgress {
  size_t done = 0, total = 0; ///< this run's (shard's) rules
  Totals totals;
};

struct RunRequest {
  std::string axioms_path; ///< recorded in the report
  std::string source;      ///< the rules' file or directory, for the report
  ShardSpec shard;         ///< the part of the rules to prove
  std::string report_path; ///< "" writes none
  bool resume = false;     ///< reuse what report_path holds
  std::string cache_dir;   ///< "" uses no proof cache
  VerifyOptions opts;
  std::function<void(const RunProgress &)> progress = {};
};

struct RunSummary {
  Report report;         ///< the shard's results, in input order
  size_t resumed = 0;    ///< taken from report_path
  size_t from_cache = 0; ///< taken from the proof cache
  size_t derived = 0;    ///< proved by opts.prove_first
};

/// Runs `request` over the shard's rules of `rules` (all of the input).
RunSummary run_verification(const AxiomFile &axioms,
                            const std::vector<Rule> &rules,
                            const RunRequest &request);

} // namespace quarry::verify
