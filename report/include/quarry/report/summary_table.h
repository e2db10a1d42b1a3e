//===- summary_table.h - A run in five lines ------------------*- C++ -*-===//
//
// The few numbers that say how a run went: candidates kept, rules proved
// (of how many), proof times, validation cases checked and failed, and the
// optimizer's latency before and after (its cost estimate when no latency
// was measured). `quarry report` prints the table; the page shows the same
// rows; other tools may print it after their own work.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/report/run_summary.h"

#include <string>
#include <vector>

namespace quarry::report {

struct SummaryRow {
  std::string label; ///< "proved rules"
  std::string value; ///< "29 of 30 (1 refuted)", or "not run"
};

/// The table's rows, in a fixed order.
std::vector<SummaryRow> summary_rows(const RunSummary &summary);

/// The rows as text, labels padded to one width, one row a line.
std::string summary_table(const RunSummary &summary);

} // namespace quarry::report
