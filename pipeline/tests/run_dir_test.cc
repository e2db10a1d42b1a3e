//===- run_dir_test.cc - Starting and resuming run directories ------------===//
#include "quarry/pipeline/run_dir.h"

#include "quarry/core/file_io.h"
#include "quarry/testing/error_of.h"
#include "quarry/testing/scratch_dir.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace quarry::pipeline {
namespace {

using quarry::testing::error_of;

PipelineConfig config(int max_ops) {
  return parse_pipeline_config("generator = /g/taso.gen\n"
                               "axioms = /a/taso.axioms\n"
                               "model = resnet50\nmax_ops = " +
                                   std::to_string(max_ops) +
                                   "\nvalidate_shards = 3\n",
                               "run.conf", "/");
}

TEST(PipelineRunDir, PreparedOnceAndAgainWithTheSameSettings) {
  quarry::testing::ScratchDir dir;
  const RunLayout run(dir.file("r"));
  prepare_run(config(2), run);
  EXPECT_TRUE(std::filesystem::is_directory(run.logs_dir()));
  // A stage's folder appears when the stage starts.
  EXPECT_FALSE(std::filesystem::exists(run.verify_dir()));
  make_step_dir(run, Step::VerifyShard);
  EXPECT_TRUE(std::filesystem::is_directory(run.verify_dir()));
  EXPECT_EQ(read_file_bytes(run.config()), format_pipeline_config(config(2)));
  EXPECT_EQ(format_pipeline_config(read_run_config(run)),
            format_pipeline_config(config(2)));
  EXPECT_NO_THROW(prepare_run(config(2), run));
  EXPECT_EQ(
      read_file_bytes(run.env()),
      "# written by quarry pipeline prepare; read by slurm/pipeline.sh\n"
      "QUARRY_RUN=" +
          run.root() +
          "\nQUARRY_STAGES=generate,verify,validate,optimize\n"
          "QUARRY_RANKS=2\nQUARRY_VERIFY_SHARDS=1\nQUARRY_VALIDATE_SHARDS=3\n");
}

TEST(PipelineRunDir, OtherSettingsAreRefused) {
  quarry::testing::ScratchDir dir;
  const RunLayout run(dir.file("r"));
  prepare_run(config(2), run);
  EXPECT_EQ(error_of([&] { prepare_run(config(3), run); }),
            run.config() +
                ": the run was started with other settings ('max_ops = 2' "
                "there, 'max_ops = 3' now); give a new run directory");
  EXPECT_EQ(read_file_bytes(run.config()), format_pipeline_config(config(2)));
}

TEST(PipelineRunDir, NotARunDirectory) {
  quarry::testing::ScratchDir dir;
  const RunLayout run(dir.path().string());
  EXPECT_EQ(error_of([&] { read_run_config(run); }),
            run.config() + ": not found; is " + run.root() +
                " a run directory (made by quarry pipeline or "
                "slurm/pipeline.sh)?");
}

TEST(PipelineRunDir, PathsWithSpacesAreQuotedForTheShell) {
  const RunLayout run("/data/my runs/r1");
  EXPECT_NE(run_env(config(2), run).find("QUARRY_RUN='/data/my runs/r1'\n"),
            std::string::npos);
}

} // namespace
} // namespace quarry::pipeline
