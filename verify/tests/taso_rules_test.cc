//===- taso_rules_test.cc - Verifying TASO's rule format directly ---------===//
//
// A small TASO-format file (rules of TASO's published graph_subst.pb, cut
// out with its own protobuf schema) is read and verified as it is, and the
// report of a run is the checkpoint a rerun resumes from.
//
//===----------------------------------------------------------------------===//
#include "quarry/core/file_io.h"
#include "quarry/rulepack/rule_pack_io.h"
#include "quarry/verify/report.h"
#include "taso_rules.pb.h"

#include "verify_test_util.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace quarry::verify {
namespace {

using testing::taso_axioms;

const std::string kTasoFile = QUARRY_TASO_RULES_FILE;

/// Rules `keep` of TASO's collection as a TASO-format file in `dir`.
std::string taso_subset(const std::filesystem::path &dir,
                        const std::vector<int> &keep) {
  GraphSubst::RuleCollection all, some;
  EXPECT_TRUE(all.ParseFromString(read_file_bytes(kTasoFile)));
  for (int i : keep)
    *some.add_rule() = all.rule(i);
  const std::string path = dir / "subset_graph_subst.pb";
  write_file_atomic(path, some.SerializeAsString());
  return path;
}

class TasoRules : public ::testing::Test {
protected:
  void SetUp() override {
    if (!std::filesystem::exists(kTasoFile))
      GTEST_SKIP() << "TASO's rule collection is not at " << kTasoFile;
    dir_ = std::filesystem::temp_directory_path() /
           ("quarry_verify_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(TasoRules, ProvesASmallTasoFileAsItIs) {
  // 0: ewadd/matmul, 22: needs right distributivity, 79: two outputs
  // through split, 99: the grouped convolution (TASO issue #62).
  const RulePack pack = read_rule_pack(taso_subset(dir_, {0, 22, 79, 99}));
  ASSERT_EQ(pack.rules.size(), 4u);
  VerifyOptions o;
  o.timeout_s = 10;
  o.threads = 2;
  const auto res = verify_rules(taso_axioms(), pack.rules, o);
  EXPECT_EQ(res[0].outcome, Outcome::Proved) << res[0].detail;
  EXPECT_EQ(res[1].outcome, Outcome::Proved) << res[1].detail;
  EXPECT_EQ(res[2].outcome, Outcome::Proved) << res[2].detail;
  EXPECT_EQ(res[3].outcome, Outcome::ProvedWithPrecondition) << res[3].detail;
}

TEST_F(TasoRules, ResumesFromItsReport) {
  const RulePack pack = read_rule_pack(taso_subset(dir_, {0, 1, 2}));
  VerifyOptions o;
  o.timeout_s = 5;
  const std::vector<RuleResult> first =
      verify_rules(taso_axioms(), pack.rules, o);
  // A report of the first two rules only, as an interrupted run leaves it.
  const std::string report = dir_ / "report.json";
  const uint64_t hash = axiom_files_hash(taso_axioms());
  ReportInfo info;
  info.axioms_file = "taso.axioms";
  info.axioms_hash = hash;
  info.prover = prover_identity();
  info.rules_file = "x.pb";
  info.options = o;
  write_file_atomic(report, report_json(info, {first[0], first[1]}));
  const auto done = resumable_results(report, hash, pack.rules);
  ASSERT_TRUE(done[0] && done[1]);
  EXPECT_FALSE(done[2]);
  EXPECT_EQ(done[1]->seconds, first[1].seconds);
  std::vector<size_t> proved_again;
  const auto second = verify_rules(
      taso_axioms(), pack.rules, o, done,
      [&](const RuleResult &r) { proved_again.push_back(r.index); });
  EXPECT_EQ(proved_again, std::vector<size_t>{2});
  for (size_t i = 0; i < 3; ++i)
    EXPECT_EQ(second[i].outcome, first[i].outcome);
  // Other axioms: nothing carries over.
  EXPECT_FALSE(resumable_results(report, hash + 1, pack.rules)[0]);
  // Nor from another prover, or from a report that does not name one.
  for (const char *prover : {"z3 4.8.12.0, quarry verify r2", ""}) {
    info.prover = prover;
    write_file_atomic(report, report_json(info, {first[0], first[1]}));
    EXPECT_FALSE(resumable_results(report, hash, pack.rules)[0]) << prover;
  }
  info.prover = prover_identity();
  write_file_atomic(report, report_json(info, {first[0], first[1]}));
  // Found by fuzzing: a rule hash that is not hexadecimal.
  std::string text = read_file_bytes(report);
  const std::string::size_type at = text.find("\"rule_hash\": \"");
  ASSERT_NE(at, std::string::npos);
  text.replace(at + 14, 16, "not-a-hash");
  write_file_atomic(report, text);
  EXPECT_EQ(
      testing::error_of([&] { resumable_results(report, hash, pack.rules); }),
      report + ": rules[0].rule_hash: 'not-a-hash' is not a hexadecimal hash "
               "(cannot resume from it)");
  write_file_atomic(report, "{ not json");
  const std::string e =
      testing::error_of([&] { resumable_results(report, hash, pack.rules); });
  EXPECT_EQ(e.rfind(report + ":1:4: not valid JSON: ", 0), 0u) << e;
  EXPECT_NE(e.find("(cannot resume from it)"), std::string::npos) << e;
}

} // namespace
} // namespace quarry::verify
