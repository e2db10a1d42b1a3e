//===- run_summary_test.cc - Reading a run directory ----------------------===//
//
// Every number of the summary is checked against the fixture run's own
// files, read here independently; then stages taken away, stopped half-way
// or corrupted.
//
//===----------------------------------------------------------------------===//
#include "quarry/report/report_files.h"
#include "quarry/report/run_summary.h"

#include "fixture_run.h"

#include "quarry/core/file_io.h"
#include "quarry/rulepack/rule_pack_io.h"
#include "quarry/testing/error_of.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>

namespace quarry::report {
namespace {

using nlohmann::json;
using quarry::testing::error_of;
using quarry::testing::ScratchDir;
using testing::copy_fixture_run;
using testing::edit_json;
using testing::overwrite;
namespace fs = std::filesystem;

json load(const std::string &path) {
  return json::parse(read_file_bytes(path));
}

TEST(RunSummary, GenerateMatchesManifest) {
  ScratchDir scratch;
  const pipeline::RunLayout run = copy_fixture_run(scratch);
  const GenerateSummary g = read_run_summary(run).generate;
  const json m = load(run.generate_manifest());
  const json &t = m["totals"];
  EXPECT_EQ(g.state, StageState::Done);
  EXPECT_EQ(g.graphs, t["graphs"]);
  EXPECT_EQ(g.reorderings, t["reorderings"]);
  EXPECT_EQ(g.classes, t["classes"]);
  EXPECT_EQ(g.collisions, t["collisions"]);
  EXPECT_EQ(g.candidates, t["candidates"]);
  EXPECT_EQ(g.after_renaming, t["after_renaming"]);
  EXPECT_EQ(g.after_subgraph_pruning, t["after_subgraph_pruning"]);
  EXPECT_EQ(g.after_subgraph_pruning, 30);
  EXPECT_EQ(g.ranks, m["ranks"]);
  EXPECT_EQ(g.max_ops, m["max_ops"]);
  EXPECT_DOUBLE_EQ(g.seconds, m["seconds"].get<double>());
  EXPECT_EQ(g.peak_rss_bytes_per_rank, m["peak_rss_bytes_per_rank"]);
}

TEST(RunSummary, VerifyMatchesReport) {
  ScratchDir scratch;
  const pipeline::RunLayout run = copy_fixture_run(scratch);
  const VerifySummary v = read_run_summary(run).verify;
  const json r = load(run.verify_report());
  const json &t = r["totals"];
  EXPECT_EQ(v.state, StageState::Done);
  EXPECT_EQ(v.rules, t["rules"]);
  EXPECT_EQ(v.proved, t["proved"]);
  EXPECT_EQ(v.proved_with_precondition, t["proved_with_precondition"]);
  EXPECT_EQ(v.unproved, t["unproved"]);
  EXPECT_EQ(v.refuted, t["refuted"]);
  EXPECT_DOUBLE_EQ(v.median_seconds, t["median_seconds"].get<double>());
  EXPECT_DOUBLE_EQ(v.max_seconds, t["max_seconds"].get<double>());
  EXPECT_DOUBLE_EQ(v.timeout_s, r["timeout_s"].get<double>());
  EXPECT_EQ(v.threads, r["threads"]);
  ASSERT_EQ(v.proof_seconds.size(), r["rules"].size());
  for (size_t i = 0; i < v.proof_seconds.size(); ++i)
    EXPECT_DOUBLE_EQ(v.proof_seconds[i],
                     r["rules"][i]["seconds"].get<double>());
  EXPECT_EQ(v.proved_total(), 29);
  EXPECT_EQ(v.refuted, 1);
}

TEST(RunSummary, RulePacksAndRulesPerOperator) {
  ScratchDir scratch;
  const pipeline::RunLayout run = copy_fixture_run(scratch);
  const RunSummary s = read_run_summary(run);
  const RulePack candidates = read_rule_pack(run.candidates());
  const RulePack proved = read_rule_pack(run.proved_rules());
  EXPECT_EQ(s.candidate_rules, static_cast<int64_t>(candidates.rules.size()));
  EXPECT_EQ(s.proved_rules, static_cast<int64_t>(proved.rules.size()));
  EXPECT_EQ(s.proved_rules, s.verify.proved_total());

  // Counted here with the rule library's own operators_used, rule by rule.
  std::map<std::string, std::pair<int64_t, int64_t>> expected;
  for (const Rule &r : candidates.rules)
    for (const std::string &op : operators_used({r}))
      ++expected[op].first;
  for (const Rule &r : proved.rules)
    for (const std::string &op : operators_used({r}))
      ++expected[op].second;
  ASSERT_EQ(s.operators.size(), expected.size());
  for (const OperatorRuleCount &c : s.operators) {
    ASSERT_TRUE(expected.count(c.op)) << c.op;
    EXPECT_EQ(c.candidates, expected[c.op].first) << c.op;
    EXPECT_EQ(c.proved, expected[c.op].second) << c.op;
  }
  // Registry order, the order operators_used gives for all rules at once.
  std::vector<Rule> all = candidates.rules;
  all.insert(all.end(), proved.rules.begin(), proved.rules.end());
  const std::vector<std::string> order = operators_used(all);
  ASSERT_EQ(order.size(), s.operators.size());
  for (size_t i = 0; i < order.size(); ++i)
    EXPECT_EQ(s.operators[i].op, order[i]);
}

TEST(RunSummary, ValidateMatchesMergedFile) {
  ScratchDir scratch;
  const pipeline::RunLayout run = copy_fixture_run(scratch);
  const ValidateSummary v = read_run_summary(run).validate;
  const json m = load(run.validate_merged());
  const json &sw = m["sweep"];
  EXPECT_EQ(v.state, StageState::Done);
  EXPECT_EQ(v.checks, m["checks"].get<std::vector<std::string>>());
  EXPECT_EQ(v.shards, m["shards"]);
  EXPECT_EQ(v.problems, m["problems"]);
  ASSERT_TRUE(v.has_sweep);
  EXPECT_EQ(v.cases, sw["cases"]);
  EXPECT_EQ(v.checked, sw["checked"]);
  EXPECT_EQ(v.skipped, sw["skipped"]);
  EXPECT_EQ(v.failed, sw["failed"]);
  EXPECT_EQ(v.filtered, sw["filtered"]);
  EXPECT_EQ(v.checked, 9980);
  ASSERT_EQ(v.axioms.size(), sw["axioms"].size());
  for (size_t i = 0; i < v.axioms.size(); ++i) {
    EXPECT_EQ(v.axioms[i].name, sw["axioms"][i]["name"]);
    EXPECT_EQ(v.axioms[i].checked, sw["axioms"][i]["checked"]);
  }
  ASSERT_TRUE(v.lemmas);
  EXPECT_EQ(v.lemmas->entailed, static_cast<int64_t>(m["lemmas"].size()));
  EXPECT_EQ(v.lemmas->total(), 6);
  EXPECT_FALSE(v.redundancy); // not among the checks of this run
  EXPECT_FALSE(v.consistency);
}

TEST(RunSummary, OptimizeMatchesReport) {
  ScratchDir scratch;
  const pipeline::RunLayout run = copy_fixture_run(scratch);
  const OptimizeSummary o = read_run_summary(run).optimize;
  const json r = load(run.optimize_report());
  EXPECT_EQ(o.state, StageState::Done);
  EXPECT_EQ(o.model, "resnext50");
  EXPECT_EQ(o.backend, "cpu");
  EXPECT_DOUBLE_EQ(o.cost_before_ms, r["cost_ms"]["before"].get<double>());
  EXPECT_DOUBLE_EQ(o.cost_after_ms, r["cost_ms"]["after"].get<double>());
  EXPECT_EQ(o.operators_before, r["operators"]["before"]);
  EXPECT_EQ(o.operators_after, r["operators"]["after"]);
  EXPECT_EQ(o.steps, static_cast<int64_t>(r["applied"].size()));
  std::map<std::string, int64_t> times;
  for (const json &a : r["applied"])
    ++times[a["name"].get<std::string>()];
  ASSERT_EQ(o.applied_counts.size(), times.size());
  for (const auto &[name, n] : o.applied_counts)
    EXPECT_EQ(n, times[name]) << name;
  EXPECT_EQ(o.applied_counts.front().first, r["applied"][0]["name"]);
  EXPECT_EQ(o.expanded, r["search"]["expanded"]);
  ASSERT_TRUE(o.latency);
  const json &c = r["check"];
  EXPECT_DOUBLE_EQ(o.latency->before_ms, c["latency_ms_before"].get<double>());
  EXPECT_DOUBLE_EQ(o.latency->after_ms, c["latency_ms_after"].get<double>());
  EXPECT_DOUBLE_EQ(o.latency->speedup, c["speedup"].get<double>());
}

TEST(RunSummary, AbsentStagesAreNotRun) {
  ScratchDir scratch;
  const pipeline::RunLayout run = copy_fixture_run(scratch);
  fs::remove_all(run.verify_dir());
  fs::remove(run.candidates());
  fs::remove_all(run.validate_dir());
  fs::remove_all(run.optimize_dir());
  const RunSummary s = read_run_summary(run);
  EXPECT_EQ(s.generate.state, StageState::Done);
  EXPECT_FALSE(s.candidate_rules);
  EXPECT_EQ(s.verify.state, StageState::NotRun);
  EXPECT_FALSE(s.proved_rules);
  EXPECT_TRUE(s.operators.empty());
  EXPECT_EQ(s.validate.state, StageState::NotRun);
  EXPECT_EQ(s.optimize.state, StageState::NotRun);
}

TEST(RunSummary, EmptyRunDirectory) {
  ScratchDir scratch;
  const RunSummary s = read_run_summary(pipeline::RunLayout(scratch.file("")));
  EXPECT_EQ(s.generate.state, StageState::NotRun);
  EXPECT_EQ(s.verify.state, StageState::NotRun);
  EXPECT_EQ(s.validate.state, StageState::NotRun);
  EXPECT_EQ(s.optimize.state, StageState::NotRun);
}

TEST(RunSummary, StartedStagesAreRunning) {
  ScratchDir scratch;
  const pipeline::RunLayout run = copy_fixture_run(scratch);
  // Verification checkpointed part-way; the optimizer not finished.
  edit_json(run.verify_report(), [](json &j) { j["complete"] = false; });
  fs::remove(run.optimize_report());
  fs::remove(run.validate_merged());
  const RunSummary s = read_run_summary(run);
  EXPECT_EQ(s.verify.state, StageState::Running);
  EXPECT_EQ(s.verify.rules, 30); // the counts so far are kept
  EXPECT_EQ(s.validate.state, StageState::Running);
  EXPECT_EQ(s.optimize.state, StageState::Running);
}

TEST(RunSummary, MissingRunDirectory) {
  ScratchDir scratch;
  const std::string root = scratch.file("absent");
  EXPECT_EQ(error_of([&] { read_run_summary(pipeline::RunLayout(root)); }),
            root + ": not a run directory (no such directory)");
}

TEST(RunSummary, InvalidJsonNamesLineAndColumn) {
  ScratchDir scratch;
  const pipeline::RunLayout run = copy_fixture_run(scratch);
  overwrite(run.generate_manifest(),
            "{\n  \"format\": \"quarry.generate.v1\",\n  \"totals\": {,\n");
  const std::string e = error_of([&] { read_run_summary(run); });
  EXPECT_EQ(e.rfind(run.generate_manifest() + ":3:14: not valid JSON: ", 0), 0u)
      << e;
  EXPECT_EQ(e.find('\n'), std::string::npos);
  // Found by fuzzing: a number no double holds is a parse error too.
  overwrite(run.generate_manifest(), "{\"totals\": 1e3080}");
  EXPECT_EQ(error_of([&] { read_run_summary(run); }),
            run.generate_manifest() +
                ": not valid JSON: number overflow parsing '1e3080'");
}

TEST(RunSummary, MalformedFilesNameWhatIsWrong) {
  ScratchDir scratch;
  const pipeline::RunLayout run = copy_fixture_run(scratch);
  const std::string manifest = run.generate_manifest();
  edit_json(manifest, [](json &j) { j["totals"].erase("graphs"); });
  EXPECT_EQ(error_of([&] { read_run_summary(run); }),
            manifest + ": totals.graphs: missing");
  overwrite(manifest, "[1, 2]");
  EXPECT_EQ(error_of([&] { read_run_summary(run); }),
            manifest + ": expected a JSON object");
  fs::remove(manifest);

  edit_json(run.verify_report(), [](json &j) { j["format"] = "other"; });
  EXPECT_EQ(error_of([&] { read_run_summary(run); }),
            run.verify_report() + ": not a quarry.verify-report.v1 file");
  fs::remove(run.verify_report());

  edit_json(run.validate_merged(),
            [](json &j) { j["sweep"]["axioms"][2]["checked"] = "many"; });
  EXPECT_EQ(error_of([&] { read_run_summary(run); }),
            run.validate_merged() +
                ": sweep.axioms[2].checked: expected an integer");
  fs::remove(run.validate_merged());

  edit_json(run.optimize_report(),
            [](json &j) { j["cost_ms"]["before"] = "fast"; });
  EXPECT_EQ(error_of([&] { read_run_summary(run); }),
            run.optimize_report() + ": cost_ms.before: expected a number");
}

TEST(RunSummary, CorruptRulePackNamesTheFile) {
  ScratchDir scratch;
  const pipeline::RunLayout run = copy_fixture_run(scratch);
  const std::string bytes = read_file_bytes(run.proved_rules());
  overwrite(run.proved_rules(), bytes.substr(0, bytes.size() / 2));
  const std::string e = error_of([&] { read_run_summary(run); });
  EXPECT_EQ(e.rfind(run.proved_rules() + ": ", 0), 0u) << e;
}

TEST(RunSummary, MalformedInputWritesNothing) {
  ScratchDir scratch;
  const pipeline::RunLayout run = copy_fixture_run(scratch);
  overwrite(run.report_html(), "an earlier page");
  overwrite(run.optimize_report(), "{\"model\": ");
  EXPECT_NE(error_of([&] {
              write_run_report(run, run.report_html(), run.summary());
            }),
            "no error");
  EXPECT_EQ(read_file_bytes(run.report_html()), "an earlier page");
  EXPECT_FALSE(fs::exists(run.summary()));
}

TEST(RunSummary, MissingOutputFolderWritesNothing) {
  ScratchDir scratch;
  const pipeline::RunLayout run = copy_fixture_run(scratch);
  const std::string json_path = scratch.file("no/such/summary.json");
  EXPECT_EQ(
      error_of([&] { write_run_report(run, run.report_html(), json_path); }),
      json_path + ": cannot write: no folder " + scratch.file("no/such"));
  EXPECT_FALSE(fs::exists(run.report_html()));
}

TEST(RunSummary, WritesBothFiles) {
  ScratchDir scratch;
  const pipeline::RunLayout run = copy_fixture_run(scratch);
  const RunSummary s = write_run_report(run, run.report_html(), run.summary());
  EXPECT_EQ(s.generate.after_subgraph_pruning, 30);
  EXPECT_EQ(load(run.summary())["format"], "quarry.run-summary.v1");
  EXPECT_EQ(read_file_bytes(run.report_html()).rfind("<!DOCTYPE html>", 0), 0u);
}

} // namespace
} // namespace quarry::report
