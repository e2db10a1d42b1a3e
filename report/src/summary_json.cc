//===- summary_json.cc - A run summary as JSON ----------------------------===//
#include "quarry/report/summary_json.h"

#include "quarry/report/log_bins.h"

#include <nlohmann/json.hpp>

namespace quarry::report {

namespace {

// ordered_json keeps members in the order they are added: the order the
// format lists them in, the same on every run.
using Json = nlohmann::ordered_json;

Json stage(StageState state) {
  Json j;
  j["state"] = std::string(state_name(state));
  return j;
}

Json generate_json(const GenerateSummary &g) {
  Json j = stage(g.state);
  if (g.state != StageState::Done)
    return j;
  j["graphs"] = g.graphs;
  j["reorderings"] = g.reorderings;
  j["classes"] = g.classes;
  j["collisions"] = g.collisions;
  j["candidates"] = g.candidates;
  j["after_renaming"] = g.after_renaming;
  j["after_subgraph_pruning"] = g.after_subgraph_pruning;
  j["ranks"] = g.ranks;
  j["max_ops"] = g.max_ops;
  j["seconds"] = g.seconds;
  j["peak_rss_bytes_per_rank"] = g.peak_rss_bytes_per_rank;
  return j;
}

Json pack_json(const std::optional<int64_t> &rules) {
  Json j = stage(rules ? StageState::Done : StageState::NotRun);
  if (rules)
    j["rules"] = *rules;
  return j;
}

Json verify_json(const VerifySummary &v) {
  Json j = stage(v.state);
  if (v.state == StageState::NotRun ||
      (v.state == StageState::Running && v.rules == 0))
    return j;
  j["rules"] = v.rules;
  j["proved"] = v.proved;
  j["proved_with_precondition"] = v.proved_with_precondition;
  j["unproved"] = v.unproved;
  j["refuted"] = v.refuted;
  j["median_seconds"] = v.median_seconds;
  j["max_seconds"] = v.max_seconds;
  j["wall_seconds"] = v.wall_seconds;
  j["timeout_s"] = v.timeout_s;
  j["threads"] = v.threads;
  const LogBins bins = log_bins(v.proof_seconds);
  Json rows = Json::array();
  for (size_t i = 0; i < bins.counts.size(); ++i)
    rows.push_back({{"from_s", bins.lower(i)},
                    {"to_s", bins.upper(i)},
                    {"rules", bins.counts[i]}});
  j["proof_time_bins"] = rows;
  return j;
}

Json answers_json(const AnswerCounts &a) {
  return {{"entailed", a.entailed},
          {"not_entailed", a.not_entailed},
          {"unknown", a.unknown}};
}

Json validate_json(const ValidateSummary &v) {
  Json j = stage(v.state);
  if (v.checks.empty())
    return j; // no merged file (yet)
  j["checks"] = v.checks;
  j["shards"] = v.shards;
  j["problems"] = v.problems;
  j["wall_seconds"] = v.wall_seconds;
  if (v.lemmas)
    j["lemmas"] = answers_json(*v.lemmas);
  if (v.redundancy)
    j["redundancy"] = answers_json(*v.redundancy);
  if (v.consistency)
    j["consistency"] = *v.consistency;
  if (v.has_sweep)
    j["sweep"] = {{"cases", v.cases},       {"checked", v.checked},
                  {"skipped", v.skipped},   {"failed", v.failed},
                  {"filtered", v.filtered}, {"seconds", v.sweep_seconds}};
  return j;
}

Json optimize_json(const OptimizeSummary &o) {
  Json j = stage(o.state);
  if (o.state != StageState::Done)
    return j;
  j["model"] = o.model;
  j["backend"] = o.backend;
  j["cost_ms"] = {{"before", o.cost_before_ms}, {"after", o.cost_after_ms}};
  j["operators"] = {{"before", o.operators_before},
                    {"after", o.operators_after}};
  j["steps"] = o.steps;
  Json applied = Json::array();
  for (const auto &[name, times] : o.applied_counts)
    applied.push_back({{"name", name}, {"times", times}});
  j["applied"] = applied;
  Json steps = Json::array();
  for (const OptimizeSummary::Step &st : o.applied) {
    Json sj{{"name", st.name}, {"text", st.text}, {"family", st.family}};
    if (st.gain)
      sj["measured_gain"] = *st.gain;
    steps.push_back(sj);
  }
  j["step_list"] = steps;
  Json families = Json::array();
  for (const OptimizeSummary::Family &f : o.families) {
    Json fj{{"family", f.family}, {"steps", f.steps}};
    if (f.gain)
      fj["measured_gain"] = *f.gain;
    families.push_back(fj);
  }
  j["families"] = families;
  if (o.selection)
    j["selection"] = {{"timed", o.selection->timed},
                      {"kept_original", o.selection->kept_original},
                      {"predicted_speedup", o.selection->predicted_speedup},
                      {"measured_speedup", o.selection->measured_speedup}};
  j["expanded"] = o.expanded;
  j["search_seconds"] = o.search_seconds;
  if (o.latency)
    j["latency_ms"] = {{"before", o.latency->before_ms},
                       {"after", o.latency->after_ms},
                       {"speedup", o.latency->speedup},
                       {"max_relative_error", o.latency->max_relative_error}};
  return j;
}

} // namespace

std::string summary_json(const RunSummary &s) {
  Json j;
  j["format"] = std::string(kRunSummaryFormat);
  j["run"] = s.run;
  j["generate"] = generate_json(s.generate);
  j["candidates"] = pack_json(s.candidate_rules);
  j["verify"] = verify_json(s.verify);
  j["proved_rules"] = pack_json(s.proved_rules);
  Json ops = Json::array();
  for (const OperatorRuleCount &c : s.operators)
    ops.push_back(
        {{"op", c.op}, {"candidates", c.candidates}, {"proved", c.proved}});
  j["operators"] = ops;
  j["validate"] = validate_json(s.validate);
  j["optimize"] = optimize_json(s.optimize);
  return j.dump(2) + "\n";
}

} // namespace quarry::report
