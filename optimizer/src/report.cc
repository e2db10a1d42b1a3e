//===- report.cc - What an optimization did, as JSON ----------------------===//
#include "quarry/optimizer/report.h"

#include "quarry/rulepack/rule_print.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>

namespace quarry::opt {

namespace {

/// A family of steps: the rule's operators, or the fusion's name.
std::string family_of(const rewrite::Transformation &t) {
  return t.rule ? rule_family(*t.rule) : t.name;
}

nlohmann::json step_json(const rewrite::Transformation &t) {
  nlohmann::json j;
  j["name"] = t.name;
  j["family"] = family_of(t);
  if (!t.rule) {
    j["kind"] = "fusion";
    return j;
  }
  const Provenance &p = t.rule->provenance;
  j["kind"] = "rule";
  j["text"] = rule_text(*t.rule);
  j["origin"] = p.origin;
  j["source_file"] = p.source_file;
  if (p.source_index)
    j["source_index"] = *p.source_index;
  j["status"] = std::string(proof_status_name(p.status));
  j["axioms"] = p.axioms;
  if (!t.rule->preconditions.empty()) {
    std::vector<std::string> pre;
    for (const auto &c : t.rule->preconditions)
      pre.push_back(c.str());
    j["preconditions"] = pre;
  }
  return j;
}

} // namespace

std::string report_json(const ReportInput &in) {
  const OptimizeResult &r = *in.result;
  nlohmann::json j;
  j["model"] = in.model;
  j["rules"] = in.rules;
  j["backend"] = in.backend;
  j["alpha"] = in.options.alpha;
  j["budget"] = in.options.budget;
  j["cost_ms"] = {{"before", r.search.initial_cost}, {"after", r.final_cost}};
  if (!r.not_timed.empty())
    j["not_timed"] = r.not_timed;
  // How the chosen graph's operators run where it names a way, and how far
  // that way's rounding moved its outputs.
  j["implementations"] = {{"chosen", r.implementations}};
  if (r.implementations_error >= 0)
    j["implementations"]["max_relative_error"] = r.implementations_error;
  // Each layout tried on the chosen graph (layout_trial.h).
  j["implementations"]["layouts"] = nlohmann::json::array();
  for (const LayoutTrial &t : r.layouts) {
    nlohmann::json l = {{"layout", ops::conv_layout_name(t.layout)},
                        {"measured_speedup", t.measured_speedup},
                        {"kept", t.kept}};
    if (t.confirmed_speedup > 0)
      l["confirmed_speedup"] = t.confirmed_speedup;
    if (t.error >= 0)
      l["max_relative_error"] = t.error;
    if (!t.kept)
      l["why_not"] = t.why_not;
    j["implementations"]["layouts"].push_back(std::move(l));
  }
  if (in.priced)
    j["priced_from"] = {{"file", in.priced->file},
                        {"device", in.priced->device},
                        {"configs_from_file", in.priced->found},
                        {"configs_by_roofline", in.priced->priced}};
  if (r.calibrated_on_ms > 0)
    j["calibration"] = {{"measured_ms", r.calibrated_on_ms},
                        {"launch_ms", r.launch_ms},
                        {"scale", r.calibration_scale}};
  j["search"] = {{"expanded", r.search.expanded},
                 {"candidates", r.search.candidates},
                 {"distinct", r.search.distinct},
                 {"seconds", r.search.seconds},
                 {"measured_configs", in.measured_configs},
                 {"unsteady_configs", in.unsteady_configs},
                 {"cold_weights", in.cold_weights},
                 {"memory_budget_bytes", in.options.memory_budget},
                 {"peak_bytes", r.search.peak_bytes},
                 {"graphs_rebuilt", r.search.rebuilt},
                 {"stopped_by_memory", r.search.stopped_by_memory}};
  j["operators"] = {{"before", in.original->graph.num_operators()},
                    {"after", r.model.graph.num_operators()}};
  // Each step, with the gain measured across it when attributed; then the
  // families, each with its steps' gains multiplied.
  const bool attributed = r.step_ms.size() == r.steps.size() + 1;
  nlohmann::json applied = nlohmann::json::array();
  std::vector<std::string> family_order;
  std::map<std::string, std::pair<int, double>> families;
  for (size_t i = 0; i < r.steps.size(); ++i) {
    const rewrite::Transformation &t = (*in.transformations)[r.steps[i]];
    nlohmann::json step = step_json(t);
    const std::string family = family_of(t);
    if (!families.count(family)) {
      family_order.push_back(family);
      families[family] = {0, 1.0};
    }
    ++families[family].first;
    if (attributed) {
      step["measured_ms_before"] = r.step_ms[i];
      step["measured_ms_after"] = r.step_ms[i + 1];
      step["measured_gain"] = r.step_ms[i] / r.step_ms[i + 1];
      families[family].second *= r.step_ms[i] / r.step_ms[i + 1];
    }
    applied.push_back(step);
  }
  j["applied"] = applied;
  // What each transformation could do to the original, most promising
  // first: a rule that never matched is absent, one whose best rewrite
  // was predicted no cheaper shows a speed-up of 1 or less.
  std::vector<StartMatch> matched = r.search.at_start;
  std::stable_sort(matched.begin(), matched.end(),
                   [](const StartMatch &a, const StartMatch &b) {
                     const auto key = [](const StartMatch &m) {
                       return m.best_cost > 0 ? m.best_cost : 1e300;
                     };
                     return key(a) < key(b);
                   });
  nlohmann::json at_start = nlohmann::json::array();
  for (const StartMatch &m : matched) {
    nlohmann::json mj{
        {"transformation", (*in.transformations)[m.transformation].name},
        {"rewrites", m.rewrites}};
    if (m.best_cost > 0)
      mj["best_predicted_speedup"] = r.search.initial_cost / m.best_cost;
    at_start.push_back(mj);
  }
  j["matched_original"] = at_start;
  nlohmann::json fams = nlohmann::json::array();
  for (const std::string &f : family_order) {
    nlohmann::json fj{{"family", f}, {"steps", families[f].first}};
    if (attributed)
      fj["measured_gain"] = families[f].second;
    fams.push_back(fj);
  }
  j["families"] = fams;
  if (!r.timed.empty()) {
    // Predicted and measured side by side, for the original and each
    // candidate timed whole.
    nlohmann::json timed = nlohmann::json::array();
    for (const TimedGraph &t : r.timed)
      timed.push_back({{"predicted_ms", t.predicted_ms},
                       {"measured_ms", t.measured_ms},
                       {"measured_speedup", t.measured_speedup},
                       {"steps", t.steps.size()}});
    const TimedGraph &o = r.timed[0], &c = r.timed[r.chosen];
    j["selection"] = {{"timed", timed},
                      {"chosen", r.chosen},
                      {"kept_original", r.kept_original},
                      {"predicted_speedup", o.predicted_ms / c.predicted_ms},
                      {"measured_speedup", c.measured_speedup}};
    if (r.confirmed_speedup > 0) {
      // The winner timed again, prepared afresh; unconfirmed: it lost.
      j["selection"]["confirmed_speedup"] = r.confirmed_speedup;
      j["selection"]["unconfirmed"] = r.unconfirmed;
    }
    if (!r.kept_because.empty())
      j["selection"]["kept_because"] = r.kept_because;
  }
  if (in.check) {
    const CheckResult &c = *in.check;
    j["check"] = {{"latency_ms_before", c.latency_before_ms},
                  {"latency_ms_after", c.latency_after_ms},
                  {"speedup", c.latency_before_ms / c.latency_after_ms},
                  {"max_relative_error", c.max_relative_error},
                  {"tolerance", c.tolerance}};
  }
  return j.dump(2) + "\n";
}

std::vector<std::string> applied_names(const ReportInput &in) {
  const OptimizeResult &r = *in.result;
  const bool attributed = r.step_ms.size() == r.steps.size() + 1;
  std::vector<std::string> out;
  for (size_t i = 0; i < r.steps.size(); ++i) {
    const rewrite::Transformation &t = (*in.transformations)[r.steps[i]];
    std::string line =
        t.rule ? t.name + " (" + t.rule->provenance.origin + ", " +
                     std::string(proof_status_name(t.rule->provenance.status)) +
                     "): " + rule_text(*t.rule)
               : t.name + " (fusion)";
    if (attributed) {
      char gain[48];
      std::snprintf(gain, sizeof gain, "  [measured %.3fx]",
                    r.step_ms[i] / r.step_ms[i + 1]);
      line += gain;
    }
    out.push_back(line);
  }
  return out;
}

} // namespace quarry::opt
