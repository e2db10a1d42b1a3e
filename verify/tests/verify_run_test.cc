//===- verify_run_test.cc - Whole runs: shards, merge, cache, journal -----===//
#include "quarry/core/file_io.h"
#include "quarry/rulepack/rule_pack_io.h"
#include "quarry/verify/proof_cache.h"
#include "quarry/verify/verify_run.h"

#include "verify_test_util.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

namespace quarry::verify {
namespace {

namespace fs = std::filesystem;
using testing::error_of;
using testing::taso_axioms;

/// Five small rules: four true, one false.
std::vector<Rule> sample_rules() {
  return {
      parse_rule("comm", "input x\ninput y\nz = ewadd(x, y)\noutput z\n",
                 "input x\ninput y\nz = ewadd(y, x)\noutput z\n"),
      parse_rule("assoc",
                 "input x\ninput y\ninput w\nz = matmul(matmul(x, y), w)\n"
                 "output z\n",
                 "input x\ninput y\ninput w\nz = matmul(x, matmul(y, w))\n"
                 "output z\n"),
      parse_rule("wrong", "input x\ny = relu(x)\noutput y\n",
                 "input x\noutput x\n"),
      parse_rule("mul_comm", "input x\ninput y\nz = ewmul(x, y)\noutput z\n",
                 "input x\ninput y\nz = ewmul(y, x)\noutput z\n"),
      parse_rule("distrib",
                 "input x\ninput y\ninput w\nz = ewmul(ewadd(x, y), w)\n"
                 "output z\n",
                 "input x\ninput y\ninput w\n"
                 "z = ewadd(ewmul(x, w), ewmul(y, w))\noutput z\n"),
  };
}

class VerifyRun : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("quarry_verify_run_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  RunRequest request() const {
    RunRequest r;
    r.axioms_path = testing::kTasoAxioms;
    r.source = "sample.pb";
    r.opts.timeout_s = 1; // "wrong" is refuted after Z3 gives up
    return r;
  }
  /// The pack `results` prove, as the bytes of its file.
  std::string pack_bytes(const std::vector<RuleResult> &results) {
    RulePack in;
    in.rules = sample_rules();
    const std::string path = dir_ / "pack.pb";
    write_rule_pack(proved_pack(in, results, testing::kTasoAxioms), path);
    return read_file_bytes(path);
  }
  /// Runs shards 0..n-1 of the sample into DIR/shards.
  void run_shards(int n) {
    for (int i = 0; i < n; ++i) {
      RunRequest r = request();
      r.shard = {i, n};
      r.report_path = dir_ / "shards" / r.shard.file_name();
      r.resume = true;
      fs::create_directories(dir_ / "shards");
      run_verification(taso_axioms(), sample_rules(), r);
    }
  }
  fs::path dir_;
};

TEST_F(VerifyRun, ShardsMergeIntoTheWholeRunsPack) {
  const RunSummary whole =
      run_verification(taso_axioms(), sample_rules(), request());
  ASSERT_EQ(whole.report.results.size(), 5u);
  EXPECT_EQ(whole.report.results[2].outcome, Outcome::Refuted);
  run_shards(3);
  const Report merged = merge_shard_reports(dir_ / "shards");
  EXPECT_EQ(merged.info.shard.count, 1);
  EXPECT_TRUE(merged.info.complete);
  ASSERT_EQ(merged.results.size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(merged.results[i].index, i);
    EXPECT_EQ(merged.results[i].outcome, whole.report.results[i].outcome);
  }
  check_report_matches(merged, sample_rules(), "shards");
  EXPECT_EQ(pack_bytes(merged.results), pack_bytes(whole.report.results));
  // No journal is left behind by a finished shard.
  EXPECT_FALSE(fs::exists(journal_path(dir_ / "shards" / "shard-0-of-3.json")));
}

TEST_F(VerifyRun, MergeRefusesMissingUnfinishedMixedOrOtherShards) {
  const fs::path shards = dir_ / "shards";
  EXPECT_EQ(error_of([&] { merge_shard_reports(shards); }),
            shards.string() + ": not a directory");
  run_shards(2);
  const std::string one = shards / "shard-1-of-2.json";
  const std::string text = read_file_bytes(one);
  fs::remove(one);
  EXPECT_EQ(error_of([&] { merge_shard_reports(shards); }),
            one + ": missing (shard 1/2 has not run)");
  std::string unfinished = text;
  unfinished.replace(unfinished.find("\"complete\": true"), 16,
                     "\"complete\": false");
  write_file_atomic(one, unfinished);
  EXPECT_EQ(error_of([&] { merge_shard_reports(shards); }),
            one + ": the shard has not finished (rerun it)");
  // A shard proved by another prover (an earlier quarry, say).
  std::string other_prover = text;
  const std::string prover = "\"prover\": \"" + prover_identity() + "\"";
  other_prover.replace(other_prover.find(prover), prover.size(),
                       "\"prover\": \"z3 4.8.12.0, quarry verify r2\"");
  write_file_atomic(one, other_prover);
  EXPECT_EQ(error_of([&] { merge_shard_reports(shards); }),
            one + ": made by prover 'z3 4.8.12.0, quarry verify r2', not '" +
                prover_identity() + "' (rerun the shard)");
  write_file_atomic(one, text);
  write_file_atomic(shards / "shard-0-of-3.json", text);
  EXPECT_EQ(error_of([&] { merge_shard_reports(shards); }),
            shards.string() + ": shard files of 2 and of 3 shards are mixed");
  fs::remove(shards / "shard-0-of-3.json");
  // Shards of other rules: the first rule left out.
  std::vector<Rule> fewer = sample_rules();
  fewer.erase(fewer.begin());
  RunRequest r = request();
  r.shard = {1, 2};
  r.report_path = one;
  run_verification(taso_axioms(), fewer, r);
  EXPECT_EQ(error_of([&] { merge_shard_reports(shards); }),
            one + ": made from other rules than " +
                (shards / "shard-0-of-2.json").string());
  // A merged report checked against rules that changed since.
  fs::remove(one);
  run_shards(2);
  const Report merged = merge_shard_reports(shards);
  EXPECT_NE(error_of([&] {
              check_report_matches(merged, fewer, "DIR");
            }).find("DIR: made from other rules than sample.pb"),
            std::string::npos);
}

TEST_F(VerifyRun, CacheReusesOutcomesAcrossRunsAndRefusesOtherAxioms) {
  RunRequest r = request();
  r.cache_dir = dir_ / "cache";
  const RunSummary first = run_verification(taso_axioms(), sample_rules(), r);
  EXPECT_EQ(first.from_cache, 0u);
  const RunSummary again = run_verification(taso_axioms(), sample_rules(), r);
  EXPECT_EQ(again.from_cache, 5u);
  EXPECT_EQ(pack_bytes(again.report.results), pack_bytes(first.report.results));
  // A larger run reuses what it shares with the smaller.
  std::vector<Rule> more = sample_rules();
  more.push_back(parse_rule(
      "add_assoc",
      "input x\ninput y\ninput w\nz = ewadd(x, ewadd(y, w))\n"
      "output z\n",
      "input x\ninput y\ninput w\nz = ewadd(ewadd(x, y), w)\noutput z\n"));
  const RunSummary larger = run_verification(taso_axioms(), more, r);
  EXPECT_EQ(larger.from_cache, 5u);
  EXPECT_EQ(larger.report.results[5].outcome, Outcome::Proved);

  // An unproved outcome is reused only by a run giving Z3 no more time.
  RuleResult timed_out;
  timed_out.outcome = Outcome::Unproved;
  const Rule hard = parse_rule("hard", "input x\ny = relu(x)\noutput y\n",
                               "input x\ny = relu(relu(relu(x)))\noutput y\n");
  timed_out.rule_hash = rule_hash(hard);
  {
    VerifyOptions shorter = r.opts;
    shorter.timeout_s = 0.75;
    ProofCache c(r.cache_dir, axiom_files_hash(taso_axioms()), "a", shorter);
    c.record(timed_out);
    EXPECT_FALSE(c.lookup(hard)); // not read back until reopened
  }
  EXPECT_FALSE(
      ProofCache(r.cache_dir, axiom_files_hash(taso_axioms()), "a", r.opts)
          .lookup(hard));
  VerifyOptions shortest = r.opts;
  shortest.timeout_s = 0.5; // r.opts gives 1 s
  EXPECT_TRUE(
      ProofCache(r.cache_dir, axiom_files_hash(taso_axioms()), "a", shortest)
          .lookup(hard));

  // Other axioms: refused, naming the cache's header.
  EXPECT_EQ(
      error_of([&] { ProofCache(r.cache_dir, 1, "other.axioms", r.opts); }),
      (dir_ / "cache" / "cache.json").string() +
          ": a proof cache of other axioms (" + testing::kTasoAxioms +
          "); give another --proof-cache directory");
  // Another prover: refused too.
  const std::string header = dir_ / "cache" / "cache.json";
  const std::string text = read_file_bytes(header);
  std::string other = text;
  other.replace(other.find("\"prover\": \"z3 "), 16, "\"prover\": \"z9 ");
  write_file_atomic(header, other);
  EXPECT_NE(error_of([&] {
              ProofCache(r.cache_dir, axiom_files_hash(taso_axioms()), "a",
                         r.opts);
            }).find(header + ": a proof cache of another prover (z9 "),
            std::string::npos);
  write_file_atomic(header, text);
  // A malformed line is named; a torn last line is not an error.
  const std::string bad = dir_ / "cache" / "results-zz.jsonl";
  write_file_atomic(bad, "{\"not\": \"a result\"}\n{\"torn");
  EXPECT_EQ(error_of([&] {
              ProofCache(r.cache_dir, axiom_files_hash(taso_axioms()), "a",
                         r.opts);
            }),
            bad + ":1: minimize_core: missing");
  write_file_atomic(bad, "{\"torn");
  EXPECT_EQ(
      ProofCache(r.cache_dir, axiom_files_hash(taso_axioms()), "a", r.opts)
          .size(),
      7u);
}

TEST_F(VerifyRun, ResumesFromTheJournalOfAKilledRun) {
  const std::vector<Rule> rules = sample_rules();
  const std::string report = dir_ / "report.json";
  const uint64_t hash = axiom_files_hash(taso_axioms());
  // What a run killed after two rules leaves: no report, a journal with a
  // torn last line.
  RuleResult a = verify_rule(taso_axioms(), rules[0], request().opts);
  RuleResult b = verify_rule(taso_axioms(), rules[3], request().opts);
  a.index = 0;
  b.index = 3;
  {
    LineJournal j(journal_path(report), true);
    j.append(journal_header(hash));
    j.append(journal_line(a));
    j.append(journal_line(b));
  }
  write_file_atomic(journal_path(report),
                    read_file_bytes(journal_path(report)) + "{\"ind");
  const auto done = resumable_results(report, hash, rules);
  EXPECT_TRUE(done[0] && done[3]);
  EXPECT_FALSE(done[1] || done[2] || done[4]);
  EXPECT_FALSE(resumable_results(report, hash + 1, rules)[0]);
  RunRequest r = request();
  r.report_path = report;
  r.resume = true;
  const RunSummary s = run_verification(taso_axioms(), rules, r);
  EXPECT_EQ(s.resumed, 2u);
  EXPECT_EQ(read_report(report).results.size(), 5u);
  EXPECT_FALSE(fs::exists(journal_path(report)));
}

} // namespace
} // namespace quarry::verify
