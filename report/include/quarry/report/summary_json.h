//===- summary_json.h - A run summary as JSON -----------------*- C++ -*-===//
//
// Format "quarry.run-summary.v1": one object per stage, each with a
// "state" ("done", "running", "not run") and, when the stage has written
// its file, its counts. Keys come in a fixed order and the same summary
// always gives the same bytes, so two runs' summaries can be diffed.
//
//   {"format": "quarry.run-summary.v1", "run": DIR,
//    "generate": {"state", "graphs", "reorderings", "classes", "collisions",
//                 "candidates", "after_renaming", "after_subgraph_pruning",
//                 "ranks", "max_ops", "seconds", "peak_rss_bytes_per_rank"},
//    "candidates": {"state", "rules"},
//    "verify": {"state", "rules", "proved", "proved_with_precondition",
//               "unproved", "refuted", "median_seconds", "max_seconds",
//               "wall_seconds", "timeout_s", "threads",
//               "proof_time_bins": [{"from_s", "to_s", "rules"}]},
//    "proved_rules": {"state", "rules"},
//    "operators": [{"op", "candidates", "proved"}],
//    "validate": {"state", "checks", "shards", "problems", "wall_seconds",
//                 "lemmas": {"entailed", "not_entailed", "unknown"},
//                 "redundancy": {...}, "consistency",
//                 "sweep": {"cases", "checked", "skipped", "failed",
//                           "filtered", "seconds"}},
//    "optimize": {"state", "model", "backend", "cost_ms": {"before",
//                 "after"}, "operators": {"before", "after"}, "steps",
//                 "applied": [{"name", "times"}], "expanded",
//                 "search_seconds", "latency_ms": {"before", "after",
//                 "speedup", "max_relative_error"}}}
//
// Members a stage has not written (lemmas without the lemma check,
// latency_ms without --check) are left out.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/report/run_summary.h"

#include <string>
#include <string_view>

namespace quarry::report {

inline constexpr std::string_view kRunSummaryFormat = "quarry.run-summary.v1";

/// The summary as JSON text, ending in a newline.
std::string summary_json(const RunSummary &summary);

} // namespace quarry::report
