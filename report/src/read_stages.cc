//===- read_stages.cc - Reading each stage's JSON result file -------------===//
//
// Only the fields a report shows are read, and each is checked for its
// type, so a file from another version that lacks one is reported by name.
//
//===----------------------------------------------------------------------===//
#include "read_stages.h"

#include "json_field.h"

#include <algorithm>

namespace quarry::report {

namespace {

StageState done_if(bool complete) {
  return complete ? StageState::Done : StageState::Running;
}

AnswerCounts answer_counts(const JsonField &list) {
  AnswerCounts c;
  list.for_each([&](const JsonField &e) {
    const std::string answer = e["answer"].text();
    if (answer == "entailed")
      ++c.entailed;
    else if (answer == "not-entailed")
      ++c.not_entailed;
    else if (answer == "unknown")
      ++c.unknown;
    else
      e["answer"].fail("unknown answer '" + answer + "'");
  });
  return c;
}

} // namespace

GenerateSummary read_generate(const std::string &path) {
  const nlohmann::json j = JsonField::parse_file(path);
  const JsonField f(j, path);
  f.expect_format("quarry.generate.v1");
  GenerateSummary g;
  g.state = StageState::Done; // the manifest is written when a run ends
  const JsonField t = f["totals"];
  g.graphs = t["graphs"].integer();
  g.reorderings = t["reorderings"].integer();
  g.classes = t["classes"].integer();
  g.collisions = t["collisions"].integer();
  g.candidates = t["candidates"].integer();
  g.after_renaming = t["after_renaming"].integer();
  g.after_subgraph_pruning = t["after_subgraph_pruning"].integer();
  g.ranks = f["ranks"].integer();
  g.max_ops = f["max_ops"].integer();
  g.seconds = f["seconds"].number();
  g.peak_rss_bytes_per_rank = f["peak_rss_bytes_per_rank"].integer();
  return g;
}

VerifySummary read_verify(const std::string &path) {
  const nlohmann::json j = JsonField::parse_file(path);
  const JsonField f(j, path);
  f.expect_format("quarry.verify-report.v1");
  VerifySummary v;
  v.state = done_if(f["complete"].boolean());
  const JsonField t = f["totals"];
  v.rules = t["rules"].integer();
  v.proved = t["proved"].integer();
  v.proved_with_precondition = t["proved_with_precondition"].integer();
  v.unproved = t["unproved"].integer();
  v.refuted = t["refuted"].integer();
  v.median_seconds = t["median_seconds"].number();
  v.max_seconds = t["max_seconds"].number();
  v.wall_seconds = t["wall_seconds"].number();
  v.timeout_s = f["timeout_s"].number();
  v.threads = f["threads"].integer();
  f["rules"].for_each([&](const JsonField &r) {
    v.proof_seconds.push_back(r["seconds"].number());
  });
  if (static_cast<int64_t>(v.proof_seconds.size()) != v.rules)
    t["rules"].fail("says " + std::to_string(v.rules) + " but " +
                    std::to_string(v.proof_seconds.size()) + " are listed");
  return v;
}

ValidateSummary read_validate(const std::string &path) {
  const nlohmann::json j = JsonField::parse_file(path);
  const JsonField f(j, path);
  f.expect_format("quarry.validate-axioms.v1");
  ValidateSummary v;
  v.state = done_if(f["complete"].boolean());
  f["checks"].for_each(
      [&](const JsonField &c) { v.checks.push_back(c.text()); });
  v.shards = f["shards"].integer();
  v.problems = f["problems"].boolean();
  v.wall_seconds = f["wall_seconds"].number();
  if (f.has("lemmas"))
    v.lemmas = answer_counts(f["lemmas"]);
  if (f.has("redundancy"))
    v.redundancy = answer_counts(f["redundancy"]);
  if (f.has("consistency"))
    v.consistency = f["consistency"]["answer"].text();
  if (f.has("sweep")) {
    const JsonField s = f["sweep"];
    v.has_sweep = true;
    v.cases = s["cases"].integer();
    v.checked = s["checked"].integer();
    v.skipped = s["skipped"].integer();
    v.failed = s["failed"].integer();
    v.filtered = s["filtered"].integer();
    v.sweep_seconds = s["seconds"].number();
    s["axioms"].for_each([&](const JsonField &a) {
      v.axioms.push_back({a["name"].text(), a["checked"].integer(),
                          a["skipped"].integer(), a["failed"].integer(),
                          a["seconds"].number()});
    });
  }
  return v;
}

OptimizeSummary read_optimize(const std::string &path) {
  const nlohmann::json j = JsonField::parse_file(path);
  const JsonField f(j, path);
  OptimizeSummary o;
  o.state = StageState::Done; // written once the optimized graph is
  o.model = f["model"].text();
  o.backend = f["backend"].text();
  o.cost_before_ms = f["cost_ms"]["before"].number();
  o.cost_after_ms = f["cost_ms"]["after"].number();
  o.operators_before = f["operators"]["before"].integer();
  o.operators_after = f["operators"]["after"].integer();
  auto optional_text = [](const JsonField &a, std::string_view key) {
    return a.has(key) ? a[key].text() : std::string();
  };
  auto optional_number = [](const JsonField &a, std::string_view key) {
    return a.has(key) ? std::optional<double>(a[key].number()) : std::nullopt;
  };
  f["applied"].for_each([&](const JsonField &a) {
    const std::string name = a["name"].text();
    o.step_list.push_back({name, optional_text(a, "text"),
                           optional_text(a, "family"),
                           optional_number(a, "measured_gain")});
    auto it = std::find_if(o.applied.begin(), o.applied.end(),
                           [&](const auto &p) { return p.first == name; });
    if (it == o.applied.end())
      o.applied.emplace_back(name, 1);
    else
      ++it->second;
    ++o.steps;
  });
  if (f.has("families"))
    f["families"].for_each([&](const JsonField &a) {
      o.families.push_back({a["family"].text(), a["steps"].integer(),
                            optional_number(a, "measured_gain")});
    });
  if (f.has("selection")) {
    const JsonField sel = f["selection"];
    int64_t timed = 0;
    sel["timed"].for_each([&](const JsonField &) { ++timed; });
    o.selection = OptimizeSummary::Selection{
        timed, sel["kept_original"].boolean(),
        sel["predicted_speedup"].number(), sel["measured_speedup"].number()};
  }
  o.expanded = f["search"]["expanded"].integer();
  o.search_seconds = f["search"]["seconds"].number();
  if (f.has("check")) {
    const JsonField c = f["check"];
    o.latency = OptimizeSummary::Latency{
        c["latency_ms_before"].number(), c["latency_ms_after"].number(),
        c["speedup"].number(), c["max_relative_error"].number()};
  }
  return o;
}

} // namespace quarry::report
