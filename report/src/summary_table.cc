//===- summary_table.cc - A run in five lines -----------------------------===//
#include "quarry/report/summary_table.h"

#include "quarry/report/number_text.h"

#include <algorithm>

namespace quarry::report {

namespace {

// A stage's value when it has numbers to show; " (running)" marks numbers
// of a stage that has not finished.
std::string with_state(StageState state, const std::string &value) {
  return state == StageState::Running ? value + " (running)" : value;
}

std::string candidates_value(const RunSummary &s) {
  const GenerateSummary &g = s.generate;
  if (g.state != StageState::Done)
    return std::string(state_name(g.state));
  return count_text(g.after_subgraph_pruning) + " (of " +
         count_text(g.candidates) + " pairs, " + count_text(g.graphs) +
         " graphs)";
}

std::string proved_value(const RunSummary &s) {
  const VerifySummary &v = s.verify;
  if (v.state == StageState::NotRun ||
      (v.state == StageState::Running && v.rules == 0))
    return std::string(state_name(v.state));
  std::string out = count_text(v.proved_total()) + " of " + count_text(v.rules);
  if (v.state == StageState::Running && s.candidate_rules)
    out += " checked so far, " + count_text(*s.candidate_rules) + " candidates";
  std::vector<std::string> notes;
  if (v.proved_with_precondition)
    notes.push_back(count_text(v.proved_with_precondition) +
                    " with precondition");
  if (v.unproved)
    notes.push_back(count_text(v.unproved) + " unproved");
  if (v.refuted)
    notes.push_back(count_text(v.refuted) + " refuted");
  for (size_t i = 0; i < notes.size(); ++i)
    out +=
        (i == 0 ? " (" : ", ") + notes[i] + (i + 1 == notes.size() ? ")" : "");
  return with_state(v.state, out);
}

std::string proof_time_value(const VerifySummary &v) {
  if (v.rules == 0)
    return std::string(state_name(v.state));
  return with_state(v.state, "median " + seconds_text(v.median_seconds) +
                                 ", max " + seconds_text(v.max_seconds));
}

std::string validation_value(const ValidateSummary &v) {
  if (v.state == StageState::NotRun ||
      (v.state == StageState::Running && !v.has_sweep))
    return std::string(state_name(v.state));
  if (!v.has_sweep)
    return "no sweep (checks: " + std::to_string(v.checks.size()) + ")";
  return with_state(v.state, count_text(v.checked) + " checked, " +
                                 count_text(v.failed) + " failed");
}

std::string change_text(double before, double after) {
  return ms_text(before) + " -> " + ms_text(after) + " (" +
         ratio_text(after > 0 ? before / after : 0) + ")";
}

SummaryRow optimizer_row(const OptimizeSummary &o) {
  if (o.state != StageState::Done)
    return {"optimizer latency", std::string(state_name(o.state))};
  const std::string where = o.model + " on " + o.backend + ": ";
  if (o.latency)
    return {"optimizer latency",
            where + change_text(o.latency->before_ms, o.latency->after_ms)};
  return {"optimizer cost (estimated)",
          where + change_text(o.cost_before_ms, o.cost_after_ms)};
}

} // namespace

std::vector<SummaryRow> summary_rows(const RunSummary &s) {
  return {{"candidates (after pruning)", candidates_value(s)},
          {"proved rules", proved_value(s)},
          {"proof time", proof_time_value(s.verify)},
          {"validation cases", validation_value(s.validate)},
          optimizer_row(s.optimize)};
}

std::string summary_table(const RunSummary &s) {
  const std::vector<SummaryRow> rows = summary_rows(s);
  size_t width = 0;
  for (const SummaryRow &r : rows)
    width = std::max(width, r.label.size());
  std::string out;
  for (const SummaryRow &r : rows)
    out +=
        r.label + std::string(width - r.label.size() + 2, ' ') + r.value + "\n";
  return out;
}

} // namespace quarry::report
