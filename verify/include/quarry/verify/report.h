//===- report.h - The JSON report of a verification run -------*- C++ -*-===//
//
// `quarry verify --report` writes, after every finished rule, a JSON file
// (format "quarry.verify-report.v1") listing each rule with its outcome,
// time, axioms used, preconditions and details, plus totals. The report is
// also the run's checkpoint: a rerun with --resume reuses every entry whose
// rule (by hash and position) and axiom files (by hash) are unchanged.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/verify/verifier.h"

#include <optional>
#include <string>
#include <vector>

namespace quarry::verify {

struct ReportInfo {
  std::string axioms_file;
  uint64_t axioms_hash = 0;
  std::string rules_file;
  VerifyOptions options;
  double wall_seconds = 0;
  bool complete = false; ///< false while the run is still going
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

/// Results of an earlier report that still apply: entry i is set when the
/// report has rule i with the same hash and was made from the same axioms.
/// A missing report gives no results; a malformed one throws quarry::Error.
std::vector<std::optional<RuleResult>>
resumable_results(const std::string &report_path, uint64_t axioms_hash,
                  const std::vector<Rule> &rules);

} // namespace quarry::verify
