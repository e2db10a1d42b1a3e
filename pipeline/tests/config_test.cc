//===- config_test.cc - Reading a pipeline's settings ---------------------===//
#include "quarry/pipeline/config.h"

#include "quarry/testing/error_of.h"

#include <gtest/gtest.h>

namespace quarry::pipeline {
namespace {

using quarry::testing::error_of;

PipelineConfig parse(const std::string &text) {
  return parse_pipeline_config(text, "run.conf", "/data/exp");
}

const char *kMinimal = "generator = gen/taso.gen\n"
                       "axioms = /abs/taso.axioms\n"
                       "model = resnet50\n";

TEST(PipelineConfig, DefaultsAndResolvedPaths) {
  const PipelineConfig c = parse(kMinimal);
  EXPECT_EQ(c.generator, "/data/exp/gen/taso.gen");
  EXPECT_EQ(c.axioms, "/abs/taso.axioms");
  EXPECT_EQ(c.stages.size(), 4u);
  EXPECT_EQ(c.max_ops, 2);
  EXPECT_EQ(c.ranks, 2);
  EXPECT_EQ(c.validate_shards, 1);
  EXPECT_EQ(c.network_name(), "resnet50");
}

TEST(PipelineConfig, EveryKey) {
  const PipelineConfig c =
      parse("# a comment line\n"
            "stages = optimize, generate ,verify   # any order; runs in order\n"
            "generator = g.gen\nmax_ops = 3\nranks = 64\nseed = 7\n"
            "axioms = a.axioms\nverify_timeout = 2.5\n"
            "verify_shards = 8\nverify_known = k3.pb\nverify_cache = /c\n"
            "validate_sizes = 1,2,3\nvalidate_checks = sweep\n"
            "validate_shards = 16\n"
            "onnx = nets/bert.onnx\nmodel_size = 8\noptimize_budget = 50\n"
            "optimize_alpha = 1.1\nbackend = cuda\n");
  EXPECT_EQ(c.stages, (std::vector<Stage>{Stage::Generate, Stage::Verify,
                                          Stage::Optimize}));
  EXPECT_EQ(c.max_ops, 3);
  EXPECT_EQ(c.ranks, 64);
  EXPECT_EQ(c.seed, 7);
  EXPECT_DOUBLE_EQ(c.verify_timeout, 2.5);
  EXPECT_EQ(c.verify_shards, 8);
  EXPECT_EQ(c.verify_known, "/data/exp/k3.pb");
  EXPECT_EQ(c.verify_cache, "/c");
  EXPECT_EQ(c.validate_sizes, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(c.validate_checks, (std::vector<std::string>{"sweep"}));
  EXPECT_EQ(c.validate_shards, 16);
  EXPECT_EQ(c.onnx, "/data/exp/nets/bert.onnx");
  EXPECT_EQ(c.network_name(), "bert");
  EXPECT_EQ(c.model_size, 8);
  EXPECT_EQ(c.optimize_budget, 50);
  EXPECT_DOUBLE_EQ(c.optimize_alpha, 1.1);
  EXPECT_EQ(c.backend, "cuda");
}

TEST(PipelineConfig, FormattedSettingsReadBackTheSame) {
  const PipelineConfig c =
      parse(std::string(kMinimal) + "validate_shards = 3\nmax_ops = 3\n"
                                    "verify_shards = 2\nverify_known = k.pb\n"
                                    "verify_cache = c\n");
  const std::string text = format_pipeline_config(c);
  const PipelineConfig again = parse_pipeline_config(text, "x", "/elsewhere");
  EXPECT_EQ(format_pipeline_config(again), text);
  EXPECT_EQ(again.generator, "/data/exp/gen/taso.gen");
}

TEST(PipelineConfig, ErrorsNameTheLine) {
  EXPECT_EQ(error_of([] { parse("max_ops = 2\nrnaks = 2\n"); }),
            "run.conf:2:1: unknown key 'rnaks' (docs/PIPELINE.md lists the "
            "keys)");
  EXPECT_EQ(error_of([] { parse("\n\nmax_ops = 9\n"); }),
            "run.conf:3:1: max_ops: expected an integer from 1 to 6, got '9'");
  EXPECT_EQ(error_of([] { parse("ranks = two\n"); }),
            "run.conf:1:1: ranks: expected an integer from 1 to 65536, got "
            "'two'");
  EXPECT_EQ(error_of([] { parse("verify_timeout = -1\n"); }),
            "run.conf:1:1: verify_timeout: expected a positive number, got "
            "'-1'");
  EXPECT_EQ(error_of([] { parse("validate_sizes = 1,,2\n"); }),
            "run.conf:1:1: validate_sizes: expected a comma-separated list "
            "without empty items, got '1,,2'");
  EXPECT_EQ(error_of([] { parse("validate_checks = lemmas,proofs\n"); }),
            "run.conf:1:1: validate_checks: expected checks among "
            "lemmas,redundancy,consistency,sweep, got 'lemmas,proofs'");
  EXPECT_EQ(error_of([] { parse("stages = generate,deploy\n"); }),
            "run.conf:1:1: stages: expected stages among "
            "generate,verify,validate,optimize, got 'generate,deploy'");
  EXPECT_EQ(error_of([] { parse("max_ops 2\n"); }),
            "run.conf:1:1: expected 'key = value', got 'max_ops 2'");
  EXPECT_EQ(error_of([] { parse("seed = 1\nseed = 2\n"); }),
            "run.conf:2:1: 'seed' is set twice");
  EXPECT_EQ(error_of([] { parse("model = res net\n"); }),
            "run.conf:1:1: model: expected a single word, got 'res net'");
  // Found by fuzzing: a path the file system refuses to look at (in a
  // folder that exists, so that it is looked at), named by its two ends.
  const std::string long_name(300, 'a');
  EXPECT_EQ(error_of([&] {
              parse_pipeline_config("generator = " + long_name + "\n",
                                    "run.conf", "/");
            }),
            "run.conf:1:1: generator: expected a path (File name too long), "
            "got '" +
                shortened_name(long_name) + "'");
}

TEST(PipelineConfig, StagesNeedTheirInputs) {
  EXPECT_EQ(error_of([] { parse("axioms = a\nmodel = m\n"); }),
            "run.conf: the generate stage needs 'generator = FILE'");
  EXPECT_EQ(error_of([] { parse("generator = g\nmodel = m\n"); }),
            "run.conf: the verify and validate stages need 'axioms = FILE'");
  EXPECT_EQ(error_of([] { parse("generator = g\naxioms = a\n"); }),
            "run.conf: the optimize stage needs one of 'model = NAME' or "
            "'onnx = FILE'");
  EXPECT_EQ(error_of([] { parse("stages = verify\naxioms = a\n"); }),
            "run.conf: the verify stage proves this run's candidates: it "
            "needs the generate stage");
  EXPECT_EQ(error_of([] { parse("stages = optimize\nmodel = m\n"); }),
            "run.conf: the optimize stage needs the verify stage or 'rules = "
            "FILE'");
  EXPECT_EQ(error_of([] { parse(std::string(kMinimal) + "rules = r.pb\n"); }),
            "run.conf: 'rules = FILE' is for runs without the verify stage, "
            "which use the rules they prove");
  // Alone, a stage needs only its own settings.
  EXPECT_NO_THROW(parse("stages = validate\naxioms = a\n"));
  EXPECT_NO_THROW(parse("stages = optimize\nmodel = m\nrules = r.pb\n"));
  EXPECT_NO_THROW(parse("stages = generate\ngenerator = g\n"));
}

} // namespace
} // namespace quarry::pipeline
