//===- report.h - What an optimization did, as JSON ------------*- C++ -*-===//
//
// {
//   "model", "rules", "backend", "alpha", "budget",
//   "cost_ms": {"before", "after"},            // the cost model's estimate
//   "calibration": {"measured_ms", "launch_ms", "scale"}, // if calibrated
//   "search": {"expanded", "candidates", "distinct", "seconds",
//              "measured_configs", "unsteady_configs",
//              "memory_budget_bytes", "peak_bytes",
//              "graphs_rebuilt", "stopped_by_memory"},
//   "operators": {"before", "after"},
//   "applied": [{"name", "kind": "rule"|"fusion", "family", "text",
//                "origin", "source_file", "source_index", "status",
//                "axioms", "measured_ms_before", "measured_ms_after",
//                "measured_gain"}...],  // in order; gains when attributed
//   "families": [{"family", "steps", "measured_gain"}...],
//   "selection": {"timed": [{"predicted_ms", "measured_ms",
//                           "measured_speedup", "steps"}...],
//                 "chosen", "kept_original", "predicted_speedup",
//                 "measured_speedup"},  // timed[0]: the original
//   "check": {"latency_ms_before", "latency_ms_after", "speedup",
//             "max_relative_error", "tolerance"}           // with --check
// }
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/optimizer/optimize.h"

#include <optional>
#include <string>

namespace quarry::opt {

struct CheckResult {
  double latency_before_ms = 0;
  double latency_after_ms = 0;
  double max_relative_error = 0;
  double tolerance = 0;
};

struct ReportInput {
  std::string model, rules, backend;
  SearchOptions options;
  const Model *original = nullptr;
  const OptimizeResult *result = nullptr;
  const std::vector<rewrite::Transformation> *transformations = nullptr;
  int measured_configs = 0;
  std::optional<CheckResult> check;
  /// Measurements the machine disturbed on every attempt (not cached).
  int unsteady_configs = 0;
  /// Whether operators were measured with their weights read from memory
  /// (runtime::MeasureOptions::cold_weights).
  bool cold_weights = false;
  /// Where the search was priced from another machine's costs (--costs):
  /// the file, its device, and how many configurations it held and how
  /// many its roofline priced (CostTable).
  struct Priced {
    std::string file, device;
    int found = 0, priced = 0;
  };
  std::optional<Priced> priced = std::nullopt;
};

/// The report, pretty-printed, ending in a newline.
std::string report_json(const ReportInput &in);

/// "name (origin, status): source => target  [measured 1.02x]" of each
/// applied step, for printing.
std::vector<std::string> applied_names(const ReportInput &in);

} // namespace quarry::opt
