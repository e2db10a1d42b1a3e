//===- report_file.h - An optimization's report, read back -----*- C++ -*-===//
//
// What `quarry optimize --json` wrote (report.h gives the whole format),
// read back by whoever shows it: the fields a run's summary and page use.
// Its own small library (quarry_optimizer_report_file, core only), so a
// reader need not link the runtime that optimizing takes.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace quarry::opt {

struct ReportFile {
  std::string model;
  std::string backend;
  double cost_before_ms = 0; ///< the cost model's estimate
  double cost_after_ms = 0;
  int64_t operators_before = 0;
  int64_t operators_after = 0;
  /// Each applied step in order: its rule's name, the rule on one line,
  /// its family, and the gain measured across it (reports of older runs
  /// lack the last three).
  struct Step {
    std::string name, text, family;
    std::optional<double> gain;
  };
  std::vector<Step> applied;
  /// Per family of rules: steps applied and their measured gains
  /// multiplied.
  struct Family {
    std::string family;
    int64_t steps = 0;
    std::optional<double> gain;
  };
  std::vector<Family> families;
  /// The cheapest graphs and the original timed whole (never slower).
  struct Selection {
    int64_t timed = 0;
    bool kept_original = false;
    double predicted_speedup = 0, measured_speedup = 0;
  };
  std::optional<Selection> selection;
  int64_t expanded = 0;
  double search_seconds = 0;
  /// Measured latencies, when the optimizer ran with --check.
  struct Latency {
    double before_ms = 0;
    double after_ms = 0;
    double speedup = 0;
    double max_relative_error = 0;
  };
  std::optional<Latency> latency;
};

/// Reads the report at `path`; throws quarry::Error naming the file and
/// the field when it is malformed.
ReportFile read_report_file(const std::string &path);

} // namespace quarry::opt
