//===- html_page.cc - A run summary as one self-contained page ------------===//
#include "quarry/report/html_page.h"

#include "quarry/report/html_escape.h"
#include "quarry/report/log_bins.h"
#include "quarry/report/number_text.h"
#include "quarry/report/summary_table.h"
#include "quarry/report/svg_plot.h"

#include <algorithm>
#include <vector>

namespace quarry::report {

namespace {

// Colours are variables, swapped for a dark scheme; plots use the classes.
constexpr const char *kStyle = R"css(
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1c1e21;
  --muted: #6b7075; --rule: #d8dadd; --s0: #3a72c2; --s1: #e0892b;
  --s2: #4d9a5b; --s3: #b0508f; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #17191c; --fg: #e4e6e8; --muted: #9aa0a6; --rule: #3a3d42;
    --s0: #6fa2ee; --s1: #f0a85c; --s2: #7cc48a; --s3: #d688bd; } }
body { background: var(--bg); color: var(--fg); max-width: 880px;
  margin: 2em auto; padding: 0 1em; font: 15px/1.5 system-ui, sans-serif; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.15em; margin-top: 1.8em; border-bottom: 1px solid var(--rule); }
.run, .notrun { color: var(--muted); }
.notrun { font-style: italic; }
table { border-collapse: collapse; margin: 0.6em 0; }
th, td { text-align: left; padding: 0.15em 1.2em 0.15em 0; vertical-align: top; }
th { font-weight: 600; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
svg { display: block; max-width: 100%; height: auto; margin: 0.6em 0; }
svg text { fill: currentColor; font: 12px system-ui, sans-serif; }
svg .axis { stroke: var(--muted); }
svg .s0 { fill: var(--s0); } svg .s1 { fill: var(--s1); }
svg .s2 { fill: var(--s2); } svg .s3 { fill: var(--s3); }
)css";

using Cells = std::vector<std::string>;

// A table of escaped text; columns listed in `numeric` are right-aligned.
std::string table(const Cells &header, const std::vector<Cells> &rows,
                  const std::vector<size_t> &numeric = {}) {
  auto is_numeric = [&](size_t c) {
    for (size_t n : numeric)
      if (n == c)
        return true;
    return false;
  };
  std::string out = "<table>\n";
  if (!header.empty()) {
    out += "<tr>";
    for (const std::string &h : header)
      out += "<th>" + escape_html(h) + "</th>";
    out += "</tr>\n";
  }
  for (const Cells &row : rows) {
    out += "<tr>";
    for (size_t c = 0; c < row.size(); ++c)
      out += (is_numeric(c) ? "<td class=\"n\">" : "<td>") +
             escape_html(row[c]) + "</td>";
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

std::string heading(const std::string &title) {
  return "<h2>" + escape_html(title) + "</h2>\n";
}

std::string paragraph(const std::string &text) {
  return "<p>" + escape_html(text) + "</p>\n";
}

std::string not_done(StageState state) {
  return "<p class=\"notrun\">" + escape_html(std::string(state_name(state))) +
         "</p>\n";
}

// "1 thread", "2 threads".
std::string counted(int64_t n, const std::string &noun) {
  return count_text(n) + " " + noun + (n == 1 ? "" : "s");
}

std::string stages_section(const RunSummary &s) {
  std::string out = heading("Counts per stage");
  std::vector<Bar> bars;
  const GenerateSummary &g = s.generate;
  if (g.state == StageState::Done) {
    bars = {{"graphs enumerated", static_cast<double>(g.graphs)},
            {"fingerprint classes", static_cast<double>(g.classes)},
            {"candidate pairs", static_cast<double>(g.candidates)},
            {"after renaming", static_cast<double>(g.after_renaming)},
            {"after subgraph pruning",
             static_cast<double>(g.after_subgraph_pruning)}};
  }
  if (s.candidate_rules)
    bars.push_back(
        {"candidate rules", static_cast<double>(*s.candidate_rules)});
  if (s.verify.state != StageState::NotRun)
    bars.push_back(
        {"proved rules", static_cast<double>(s.verify.proved_total())});
  if (!bars.empty())
    out += bar_chart("Counts per stage (log scale)", bars, true);
  auto state = [](StageState st) { return std::string(state_name(st)); };
  std::vector<Cells> rows = {
      {"generate", state(g.state),
       g.state == StageState::Done
           ? counted(g.ranks, "rank") + ", up to " +
                 counted(g.max_ops, "operator") + ", " + seconds_text(g.seconds)
           : ""},
      {"candidates",
       state(s.candidate_rules ? StageState::Done : StageState::NotRun),
       s.candidate_rules ? count_text(*s.candidate_rules) + " rules" : ""},
      {"verify", state(s.verify.state),
       s.verify.rules ? counted(s.verify.threads, "thread") + ", " +
                            seconds_text(s.verify.wall_seconds) + " wall"
                      : ""},
      {"validate", state(s.validate.state),
       s.validate.shards ? counted(s.validate.shards, "shard") + ", " +
                               seconds_text(s.validate.wall_seconds) + " wall"
                         : ""},
      {"optimize", state(s.optimize.state),
       s.optimize.state == StageState::Done
           ? s.optimize.model + " on " + s.optimize.backend
           : ""}};
  return out + table({"stage", "state", ""}, rows);
}

std::string operators_section(const RunSummary &s) {
  std::string out = heading("Rules per operator");
  if (s.operators.empty())
    return out + not_done(StageState::NotRun);
  std::vector<BarGroup> groups;
  for (const OperatorRuleCount &c : s.operators)
    groups.push_back(
        {c.op,
         {static_cast<double>(c.candidates), static_cast<double>(c.proved)}});
  return out +
         paragraph("How many rules use each operator, in their source "
                   "or target graph.") +
         grouped_bar_chart("Rules per operator", {"candidates", "proved"},
                           groups);
}

std::string verify_section(const VerifySummary &v) {
  std::string out = heading("Proofs");
  if (v.proof_seconds.empty())
    return out + not_done(v.state);
  out += table(
      {"outcome", "rules"},
      {{"proved", count_text(v.proved)},
       {"proved with precondition", count_text(v.proved_with_precondition)},
       {"unproved", count_text(v.unproved)},
       {"refuted", count_text(v.refuted)},
       {"all", count_text(v.rules)}},
      {1});
  out += paragraph("Proof time per rule: median " +
                   seconds_text(v.median_seconds) + ", max " +
                   seconds_text(v.max_seconds) + " (timeout " +
                   seconds_text(v.timeout_s) + ").");
  return out + histogram_chart("Proof time per rule", log_bins(v.proof_seconds),
                               "time per rule (log scale)");
}

std::string answers_row(const std::string &name, const AnswerCounts &a) {
  return name + ": " + count_text(a.entailed) + " entailed, " +
         count_text(a.not_entailed) + " not entailed, " +
         count_text(a.unknown) + " unknown";
}

std::string validate_section(const ValidateSummary &v) {
  std::string out = heading("Axiom validation");
  if (v.checks.empty())
    return out + not_done(v.state);
  if (v.has_sweep) {
    out += table(
        {"sweep cases", "checked", "skipped", "failed", "filtered", "CPU time"},
        {{count_text(v.cases), count_text(v.checked), count_text(v.skipped),
          count_text(v.failed), count_text(v.filtered),
          seconds_text(v.sweep_seconds)}},
        {0, 1, 2, 3, 4, 5});
    std::vector<Cells> failing;
    for (const AxiomSweep &a : v.axioms)
      if (a.failed)
        failing.push_back(
            {a.name, count_text(a.checked), count_text(a.failed)});
    if (!failing.empty())
      out += table({"axiom", "checked", "failed"}, failing, {1, 2});
  }
  if (v.lemmas)
    out += paragraph(answers_row("lemmas", *v.lemmas));
  if (v.redundancy)
    out += paragraph(answers_row("redundancy", *v.redundancy));
  if (v.consistency)
    out += paragraph("consistency: " + *v.consistency);
  out += paragraph(v.problems ? "Problems were found (see the merged file)."
                              : "No problems found.");
  return v.state == StageState::Running ? out + not_done(v.state) : out;
}

std::string optimize_section(const OptimizeSummary &o) {
  std::string out = heading("Optimizer");
  if (o.state != StageState::Done)
    return out + not_done(o.state);
  std::vector<BarGroup> groups = {
      {"estimated cost", {o.cost_before_ms, o.cost_after_ms}}};
  if (o.latency)
    groups.push_back(
        {"measured latency", {o.latency->before_ms, o.latency->after_ms}});
  out += paragraph(
      o.model + " on " + o.backend + ": " + count_text(o.operators_before) +
      " operators before, " + count_text(o.operators_after) + " after; " +
      count_text(o.steps) + " steps applied, " + count_text(o.expanded) +
      " graphs expanded in " + seconds_text(o.search_seconds) + ".");
  if (o.latency)
    out += paragraph("Measured speed-up " + ratio_text(o.latency->speedup) +
                     ", largest relative error " +
                     value_text(o.latency->max_relative_error) + ".");
  out += grouped_bar_chart("Before and after optimization", {"before", "after"},
                           groups, "ms");
  if (o.selection)
    out += paragraph(
        o.selection->kept_original
            ? "The cost model predicted " +
                  ratio_text(o.selection->predicted_speedup) + "; the " +
                  count_text(o.selection->timed - 1) +
                  " cheapest graphs it found measured no faster than the "
                  "original, which was kept."
            : "Predicted " + ratio_text(o.selection->predicted_speedup) +
                  ", measured " + ratio_text(o.selection->measured_speedup) +
                  " (the fastest of " + count_text(o.selection->timed - 1) +
                  " candidates timed against the original).");
  const bool texts =
      std::any_of(o.applied.begin(), o.applied.end(),
                  [](const auto &st) { return !st.text.empty(); });
  if (texts) {
    // Every step with its rule and the gain measured across it.
    std::vector<Cells> steps;
    for (const OptimizeSummary::Step &st : o.applied)
      steps.push_back({st.name, st.text.empty() ? st.family : st.text,
                       st.gain ? ratio_text(*st.gain) : "-"});
    out += table({"applied", "rule", "measured gain"}, steps, {2});
  } else {
    std::vector<Cells> applied;
    for (const auto &[name, times] : o.applied_counts)
      applied.push_back({name, count_text(times)});
    if (!applied.empty())
      out += table({"applied", "times"}, applied, {1});
  }
  std::vector<Cells> families;
  for (const OptimizeSummary::Family &f : o.families)
    families.push_back(
        {f.family, count_text(f.steps), f.gain ? ratio_text(*f.gain) : "-"});
  if (!families.empty())
    out += table({"rule family", "steps", "measured gain"}, families, {1, 2});
  return out;
}

} // namespace

std::string html_page(const RunSummary &s) {
  std::vector<Cells> summary;
  for (const SummaryRow &r : summary_rows(s))
    summary.push_back({r.label, r.value});
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
                    "<meta charset=\"utf-8\">\n"
                    "<meta name=\"viewport\" content=\"width=device-width\">\n"
                    "<title>quarry run " +
                    escape_html(s.run) + "</title>\n<style>" + kStyle +
                    "</style>\n</head>\n<body>\n<h1>quarry run</h1>\n"
                    "<p class=\"run\">" +
                    escape_html(s.run) + "</p>\n";
  out += table({}, summary);
  out += stages_section(s);
  out += operators_section(s);
  out += verify_section(s.verify);
  out += validate_section(s.validate);
  out += optimize_section(s.optimize);
  return out + "</body>\n</html>\n";
}

} // namespace quarry::report
