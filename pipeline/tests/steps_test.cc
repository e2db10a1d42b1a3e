//===- steps_test.cc - The commands of a run's steps ----------------------===//
#include "quarry/pipeline/steps.h"

#include "quarry/pipeline/process.h"
#include "quarry/testing/error_of.h"
#include "quarry/testing/scratch_dir.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace quarry::pipeline {
namespace {

using quarry::testing::error_of;

PipelineConfig config(const std::string &extra = "") {
  return parse_pipeline_config("generator = /g/taso.gen\n"
                               "axioms = /a/taso.axioms\n"
                               "model = resnet50\nmodel_size = 16\n"
                               "validate_shards = 4\n" +
                                   extra,
                               "run.conf", "/");
}

std::string command(const PipelineConfig &c, const RunLayout &run, Step s,
                    int shard = 0, int threads = 0) {
  return command_line(step_command(c, run, {s, shard, threads}, "quarry"));
}

TEST(PipelineSteps, EveryStageInOrder) {
  std::vector<std::string> names;
  for (Step s : steps_of(config()))
    names.push_back(step_name(s));
  EXPECT_EQ(names,
            (std::vector<std::string>{"generate", "candidates", "verify-shard",
                                      "verify-merge", "validate-shard",
                                      "validate-merge", "optimize", "report"}));
  names.clear();
  for (Step s : steps_of(config("stages = validate\n")))
    names.push_back(step_name(s));
  EXPECT_EQ(names, (std::vector<std::string>{"validate-shard", "validate-merge",
                                             "report"}));
}

TEST(PipelineSteps, CommandsReadAndWriteTheRunDirectory) {
  const RunLayout run("/runs/r1");
  const PipelineConfig c = config();
  EXPECT_EQ(command(c, run, Step::Generate),
            "quarry generate --config /g/taso.gen --max-ops 2 --seed 1 --out "
            "/runs/r1/generate");
  EXPECT_EQ(command(c, run, Step::Candidates),
            "quarry candidates export /runs/r1/generate --out "
            "/runs/r1/candidates.pb");
  EXPECT_EQ(command(c, run, Step::VerifyShard, 0, 8),
            "quarry verify --axioms /a/taso.axioms --rules "
            "/runs/r1/candidates.pb --shard 0/1 --out "
            "/runs/r1/verify/shards --timeout 10 --threads 8");
  EXPECT_EQ(command(c, run, Step::VerifyMerge),
            "quarry verify merge /runs/r1/verify/shards --out "
            "/runs/r1/verify/rules.pb --json /runs/r1/verify/report.json");
  // Sharded, with derivations by a known pack and a proof cache.
  EXPECT_EQ(command(config("verify_shards = 3\nverify_known = k3.pb\n"
                           "verify_cache = /proofs\n"),
                    run, Step::VerifyShard, 2),
            "quarry verify --axioms /a/taso.axioms --rules "
            "/runs/r1/candidates.pb --shard 2/3 --out "
            "/runs/r1/verify/shards --timeout 10 --known /k3.pb --proof-cache "
            "/proofs");
  EXPECT_EQ(command(c, run, Step::ValidateShard, 3, 2),
            "quarry validate-axioms --axioms /a/taso.axioms --sizes 1,2 "
            "--checks lemmas,sweep --shard 3/4 --out /runs/r1/validate "
            "--threads 2");
  EXPECT_EQ(command(c, run, Step::ValidateMerge),
            "quarry validate-axioms merge /runs/r1/validate");
  EXPECT_EQ(command(c, run, Step::Optimize),
            "quarry optimize resnet50 --size 16 --rules "
            "/runs/r1/verify/rules.pb --budget 20 --alpha 1.05 --backend cpu "
            "--cost-cache /runs/r1/optimize/costs.tsv --out "
            "/runs/r1/optimize/resnet50.onnx --json "
            "/runs/r1/optimize/report.json --check");
  EXPECT_EQ(command(c, run, Step::Report), "quarry report /runs/r1");
}

TEST(PipelineSteps, ShardOutOfRangeIsRefused) {
  const RunLayout run("/runs/r1");
  EXPECT_EQ(error_of([&] { command(config(), run, Step::ValidateShard, 4); }),
            "shard 4 is not in 0..3");
  EXPECT_EQ(error_of([&] { command(config(), run, Step::VerifyShard, 1); }),
            "shard 1 is not in 0..0");
}

TEST(PipelineSteps, NamesRoundTripAndUnknownIsListed) {
  for (Step s : steps_of(config()))
    EXPECT_EQ(step_named(step_name(s)), s);
  EXPECT_EQ(error_of([] { step_named("deploy"); }),
            "unknown step 'deploy' (steps: generate, candidates, "
            "verify-shard, verify-merge, validate-shard, validate-merge, "
            "optimize, report)");
}

TEST(PipelineSteps, FinishedStepsAreSkipped) {
  quarry::testing::ScratchDir dir;
  const RunLayout run(dir.path().string());
  const PipelineConfig c = config();
  EXPECT_FALSE(step_already_done(run, c, Step::Generate));
  EXPECT_FALSE(step_already_done(run, c, Step::Optimize));

  std::filesystem::create_directories(run.verify_dir());
  std::filesystem::create_directories(run.generate_dir());
  std::filesystem::create_directories(run.optimize_dir());
  std::ofstream(run.verify_report()) << "{}";
  std::ofstream(run.generate_manifest()) << "{}";
  std::ofstream(run.optimize_report()) << "{}";
  EXPECT_TRUE(step_already_done(run, c, Step::Generate));
  // The report alone is not a finished optimization: the network is missing.
  EXPECT_FALSE(step_already_done(run, c, Step::Optimize));
  std::ofstream(run.optimized_model("resnet50")) << "x";
  EXPECT_TRUE(step_already_done(run, c, Step::Optimize));
  // Shards resume by themselves; merging is cheap.
  EXPECT_FALSE(step_already_done(run, c, Step::VerifyShard));
  EXPECT_FALSE(step_already_done(run, c, Step::VerifyMerge));
}

TEST(PipelineProcess, CommandLinesQuoteWhatAShellWouldSplit) {
  EXPECT_EQ(command_line({"quarry", "--out", "/a b/it's"}),
            "quarry --out '/a b/it'\\''s'");
  EXPECT_EQ(command_line({"x", ""}), "x ''");
}

TEST(PipelineProcess, ExitStatusAndSignalsComeBack) {
  EXPECT_EQ(run_command({"true"}), 0);
  EXPECT_EQ(run_command({"sh", "-c", "exit 3"}), 3);
  EXPECT_EQ(run_command({"sh", "-c", "kill -KILL $$"}), 128 + 9);
  EXPECT_EQ(run_command({"sh", "-c", "test \"$QUARRY_X\" = 1"}, {"QUARRY_X=1"}),
            0);
  EXPECT_EQ(error_of([] { run_command({"/no/such/program"}); }),
            "cannot run /no/such/program: No such file or directory");
}

} // namespace
} // namespace quarry::pipeline
