//===- report.h - The JSON report of a verification run -------*- C++ -*-===//
//
// `quarry verify --json` writes, after every finished rule, a JSON file
// (format "quarry.verify-report.v1") listing each rule with its outcome,
// time, axioms used, preconditions and details, plus totals. The report is
// also the run's checkpoint: a rerun with --resume reuses every entry whose
// rule (by hash and position), axiom files (by hash) and prover
// (prover_identity()) are unchanged.
//
// A sharded run (`--shard I/N`) proves the rules whose position is I modulo
// N and writes its report as DIR/shard-I-of-N.json; merge_shard_reports
// puts the N reports back together, refusing any that is missing,
// unfinished, or made from other rules or axioms or by another prover.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/shard_spec.h"
#include "quarry/verify/verifier.h"

#include <optional>
#include <string>
#include <vector>

namespace quarry::verify {

struct ReportInfo {
  std::string axioms_file;
  uint64_t axioms_hash = 0;
  /// prover_identity() of the run that wrote it; "" in reports written
  /// before reports recorded it, which nothing resumes or merges.
  std::string prover;
  std::string rules_file; ///< the rule pack or candidates directory
  VerifyOptions options;
  double wall_seconds = 0;
  bool complete = false;   ///< false while the run is still going
  uint64_t rules_hash = 0; ///< rules_hash() of all its rules
  size_t input_rules = 0;  ///< how many rules it holds
  ShardSpec shard;         ///< the part this report covers
};

struct Totals {
  size_t rules = 0, proved = 0, proved_with_precondition = 0, unproved = 0,
         refuted = 0;
  double median_seconds = 0, max_seconds = 0;
};

Totals totals(const std::vector<RuleResult> &results);

/// A hash of the contents of every file an axiom file was read from.
uint64_t axiom_files_hash(const AxiomFile &file);

/// The report as JSON text; `results` may be partial (unfinished runs).
std::string report_json(const ReportInfo &info,
                        const std::vector<RuleResult> &results);

/// A report read back. Throws quarry::Error naming the file when it is not
/// a verification report.
struct Report {
  ReportInfo info;
  std::vector<RuleResult> results;
};
Report read_report(const std::string &path);

/// A hash of every rule's rule_hash, in order: which input a report is of.
uint64_t rules_hash(const std::vector<Rule> &rules);

/// The N shard reports in `dir` as one report of all rules (shard 0/1,
/// results in input order, wall time the longest shard's). Throws
/// quarry::Error naming the file when a shard is missing or unfinished,
/// shards of different N are mixed, or a shard differs from shard 0 in
/// its rules or axioms.
Report merge_shard_reports(const std::string &dir);

/// Checks that `report` holds one result for each of `rules`, by position
/// and hash; throws quarry::Error naming `report_path` otherwise.
void check_report_matches(const Report &report, const std::vector<Rule> &rules,
                          const std::string &report_path);

/// Where a run records each result the moment it has it: REPORT.journal,
/// a LineJournal whose first line names the axioms. The report itself is
/// rewritten only now and then (it grows with the rules); a finished run
/// removes the journal, and resumable_results reads it with the report.
std::string journal_path(const std::string &report_path);
/// The journal's first line, for proofs from `axioms_hash` by this
/// prover.
std::string journal_header(uint64_t axioms_hash);
/// The journal's line for `result`.
std::string journal_line(const RuleResult &result);

/// Results of an earlier report (and its journal) that still apply: entry i is
/// set when the report has rule i with the same hash and was made from the same
/// axioms by this prover (prover_identity()). A missing report gives no
/// results; a malformed one throws quarry::Error.
std::vector<std::optional<RuleResult>>
resumable_results(const std::string &report_path, uint64_t axioms_hash,
                  const std::vector<Rule> &rules);

} // namespace quarry::verify
