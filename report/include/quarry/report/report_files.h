//===- report_files.h - Writing a run's report files ----------*- C++ -*-===//
//
// `quarry report` writes two files, the page and the JSON summary. Both
// texts are made and both destinations checked before either is written,
// and each is written atomically, so a failure leaves no partial output.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/report/run_summary.h"

#include <string>

namespace quarry::report {

/// Writes html_page(summary) to `html_path` and summary_json(summary) to
/// `json_path`. Throws quarry::Error naming a path whose folder is missing.
void write_report_files(const RunSummary &summary, const std::string &html_path,
                        const std::string &json_path);

/// What `quarry report` does: read_run_summary(run), then
/// write_report_files. A malformed stage file throws before anything is
/// written. Returns the summary (for the table).
RunSummary write_run_report(const pipeline::RunLayout &run,
                            const std::string &html_path,
                            const std::string &json_path);

} // namespace quarry::report
