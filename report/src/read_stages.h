//===- read_stages.h - Reading one stage's result file --------*- C++ -*-===//
//
// One function per stage file of a run; each is called only when its file
// exists and throws quarry::Error naming the file when it is malformed.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/report/run_summary.h"

#include <string>

namespace quarry::report {

GenerateSummary read_generate(const std::string &manifest_path);
VerifySummary read_verify(const std::string &report_path);
ValidateSummary read_validate(const std::string &merged_path);
OptimizeSummary read_optimize(const std::string &report_path);

/// Adds, for every operator kind, how many rules of the pack at `path` use
/// it to `OperatorRuleCount::candidates` or `::proved` (`proved` picks
/// which); returns the number of rules in the pack.
int64_t count_operators(const std::string &path, bool proved,
                        std::vector<OperatorRuleCount> &counts);

} // namespace quarry::report
