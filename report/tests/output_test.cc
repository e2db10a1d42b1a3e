//===- output_test.cc - The summary table, JSON and HTML page -------------===//
#include "quarry/report/html_page.h"
#include "quarry/report/summary_json.h"
#include "quarry/report/summary_table.h"

#include "fixture_run.h"

#include "quarry/core/file_io.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

namespace quarry::report {
namespace {

using nlohmann::json;
using quarry::testing::ScratchDir;
using testing::copy_fixture_run;
using testing::count;
using testing::edit_json;
using testing::overwrite;
namespace fs = std::filesystem;

TEST(SummaryTable, FixtureRun) {
  ScratchDir scratch;
  const RunSummary s = read_run_summary(copy_fixture_run(scratch));
  EXPECT_EQ(summary_table(s),
            "candidates (after pruning)  30 (of 337 pairs, 10,145 graphs)\n"
            "proved rules                29 of 30 (1 refuted)\n"
            "proof time                  median 9.11 ms, max 5.00 s\n"
            "validation cases            9,980 checked, 0 failed\n"
            "optimizer latency           resnext50 on cpu: 10.03 ms -> 7.49 "
            "ms (1.34x)\n");
}

TEST(SummaryTable, EstimatedCostWithoutMeasuredLatency) {
  ScratchDir scratch;
  const pipeline::RunLayout run = copy_fixture_run(scratch);
  edit_json(run.optimize_report(), [](json &j) { j.erase("check"); });
  const std::vector<SummaryRow> rows = summary_rows(read_run_summary(run));
  EXPECT_EQ(rows.back().label, "optimizer cost (estimated)");
  EXPECT_EQ(rows.back().value, "resnext50 on cpu: 6.15 ms -> 5.72 ms (1.08x)");
}

TEST(SummaryTable, StagesNotRunOrRunning) {
  ScratchDir scratch;
  const pipeline::RunLayout run = copy_fixture_run(scratch);
  fs::remove(run.generate_manifest()); // generate/ stays: under way
  fs::remove_all(run.verify_dir());
  fs::remove_all(run.validate_dir());
  fs::remove_all(run.optimize_dir());
  EXPECT_EQ(summary_table(read_run_summary(run)),
            "candidates (after pruning)  running\n"
            "proved rules                not run\n"
            "proof time                  not run\n"
            "validation cases            not run\n"
            "optimizer latency           not run\n");
}

TEST(SummaryTable, VerificationUnderWay) {
  ScratchDir scratch;
  const pipeline::RunLayout run = copy_fixture_run(scratch);
  edit_json(run.verify_report(), [](json &j) {
    j["complete"] = false;
    j["rules"].erase(j["rules"].begin() + 10, j["rules"].end());
    j["totals"]["rules"] = 10;
    j["totals"]["proved"] = 10;
    j["totals"]["refuted"] = 0;
  });
  EXPECT_EQ(summary_rows(read_run_summary(run))[1].value,
            "10 of 10 checked so far, 30 candidates (running)");
}

TEST(SummaryJson, NumbersAndKeyOrder) {
  ScratchDir scratch;
  const RunSummary s = read_run_summary(copy_fixture_run(scratch));
  const std::string text = summary_json(s);
  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(text);
  std::vector<std::string> keys;
  for (const auto &[key, value] : j.items())
    keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{
                      "format", "run", "generate", "candidates", "verify",
                      "proved_rules", "operators", "validate", "optimize"}));
  EXPECT_EQ(j["format"], "quarry.run-summary.v1");
  EXPECT_EQ(j["generate"]["state"], "done");
  EXPECT_EQ(j["generate"]["after_subgraph_pruning"], 30);
  EXPECT_EQ(j["candidates"]["rules"], *s.candidate_rules);
  EXPECT_EQ(j["verify"]["proved"], 29);
  EXPECT_EQ(j["verify"]["refuted"], 1);
  EXPECT_EQ(j["proved_rules"]["rules"], 29);
  int64_t binned = 0;
  for (const auto &b : j["verify"]["proof_time_bins"])
    binned += b["rules"].get<int64_t>();
  EXPECT_EQ(binned, 30);
  ASSERT_EQ(j["operators"].size(), s.operators.size());
  EXPECT_EQ(j["operators"][0]["op"], s.operators[0].op);
  EXPECT_EQ(j["validate"]["sweep"]["checked"], 9980);
  EXPECT_EQ(j["validate"]["lemmas"]["entailed"], 6);
  EXPECT_FALSE(j["validate"].contains("redundancy"));
  EXPECT_EQ(j["optimize"]["applied"][0]["name"], "gen_000005");
  EXPECT_EQ(j["optimize"]["applied"][0]["times"], 15);
  EXPECT_DOUBLE_EQ(j["optimize"]["latency_ms"]["before"].get<double>(),
                   s.optimize.latency->before_ms);
  EXPECT_EQ(summary_json(s), text); // the same bytes every time
}

TEST(SummaryJson, AbsentStagesSayNotRun) {
  ScratchDir scratch;
  const json j = json::parse(
      summary_json(read_run_summary(pipeline::RunLayout(scratch.file("")))));
  for (const char *stage : {"generate", "candidates", "verify", "proved_rules",
                            "validate", "optimize"})
    EXPECT_EQ(j[stage], json({{"state", "not run"}})) << stage;
  EXPECT_TRUE(j["operators"].empty());
}

TEST(HtmlPage, SelfContainedWithOnePlotEach) {
  ScratchDir scratch;
  const std::string page =
      html_page(read_run_summary(copy_fixture_run(scratch)));
  EXPECT_EQ(page.rfind("<!DOCTYPE html>\n", 0), 0u);
  for (const char *outside :
       {"http://", "https://", "<script", "src=", "href=", "url(", "@import"})
    EXPECT_EQ(page.find(outside), std::string::npos) << outside;
  // Counts per stage, rules per operator, proof times, before/after.
  EXPECT_EQ(count(page, "<svg "), 4u);
  EXPECT_EQ(count(page, "</svg>"), 4u);
  EXPECT_NE(page.find("prefers-color-scheme: dark"), std::string::npos);
  EXPECT_NE(page.find("<td>proved rules</td><td>29 of 30 (1 refuted)</td>"),
            std::string::npos);
  EXPECT_NE(page.find("aria-label=\"Rules per operator\""), std::string::npos);
}

TEST(HtmlPage, StagesNotRunHaveNoPlots) {
  ScratchDir scratch;
  const pipeline::RunLayout run = copy_fixture_run(scratch);
  fs::remove(run.candidates());
  fs::remove_all(run.verify_dir());
  fs::remove_all(run.validate_dir());
  fs::remove_all(run.optimize_dir());
  const std::string page = html_page(read_run_summary(run));
  EXPECT_EQ(count(page, "<svg "), 1u); // the generator's counts
  EXPECT_EQ(count(page, "<p class=\"notrun\">not run</p>"), 4u);

  const std::string empty = html_page(
      read_run_summary(pipeline::RunLayout(scratch.file("run/generate"))));
  EXPECT_EQ(count(empty, "<svg "), 0u);
}

TEST(HtmlPage, AppliedRulesWithTheirTextGainsAndFamilies) {
  // What optimize writes now: each step's rule on one line, its family and
  // the gain measured across it; families; the selection.
  ScratchDir scratch;
  const pipeline::RunLayout run = copy_fixture_run(scratch);
  edit_json(run.optimize_report(), [](json &j) {
    for (json &a : j["applied"]) {
      a["text"] = "relu(conv2d(x, w)) => conv2d[act=relu](x, w)";
      a["family"] = "conv2d+relu";
      a["measured_gain"] = 1.01;
    }
    j["families"] = json::array({{{"family", "conv2d+relu"},
                                  {"steps", j["applied"].size()},
                                  {"measured_gain", 1.17}}});
    j["selection"] = {{"timed", json::array({json::object(), json::object()})},
                      {"chosen", 1},
                      {"kept_original", false},
                      {"predicted_speedup", 1.25},
                      {"measured_speedup", 1.17}};
  });
  const RunSummary s = read_run_summary(run);
  ASSERT_FALSE(s.optimize.applied.empty());
  EXPECT_EQ(s.optimize.applied[0].family, "conv2d+relu");
  EXPECT_DOUBLE_EQ(*s.optimize.applied[0].gain, 1.01);
  ASSERT_EQ(s.optimize.families.size(), 1u);
  EXPECT_DOUBLE_EQ(*s.optimize.families[0].gain, 1.17);
  ASSERT_TRUE(s.optimize.selection);
  EXPECT_FALSE(s.optimize.selection->kept_original);
  const std::string page = html_page(s);
  EXPECT_NE(page.find("relu(conv2d(x, w)) =&gt; conv2d[act=relu](x, w)"),
            std::string::npos);
  EXPECT_NE(page.find("<th>rule family</th>"), std::string::npos);
  EXPECT_NE(page.find("Predicted 1.25x, measured 1.17x"), std::string::npos);
  const json j = json::parse(summary_json(s));
  EXPECT_EQ(j["optimize"]["families"][0]["family"], "conv2d+relu");
  EXPECT_EQ(j["optimize"]["selection"]["measured_speedup"], 1.17);
  // Older reports, without texts or gains, still read.
  edit_json(run.optimize_report(), [](json &j) {
    j.erase("families");
    j.erase("selection");
    for (json &a : j["applied"])
      a.erase("measured_gain");
  });
  EXPECT_FALSE(read_run_summary(run).optimize.selection);
}

TEST(HtmlPage, TextFromFilesIsEscaped) {
  ScratchDir scratch;
  const pipeline::RunLayout run = copy_fixture_run(scratch);
  edit_json(run.optimize_report(), [](json &j) {
    j["model"] = "<img src=x onerror=\"alert(1)\">";
    j["applied"][0]["name"] = "a&b<c>";
  });
  const std::string page = html_page(read_run_summary(run));
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find("a&b"), std::string::npos);
  EXPECT_NE(page.find("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;"),
            std::string::npos);
  EXPECT_NE(page.find("<td>a&amp;b&lt;c&gt;</td>"), std::string::npos);
}

} // namespace
} // namespace quarry::report
