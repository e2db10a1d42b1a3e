//===- progress_line_test.cc - Progress in a batch log --------------------===//
//
// ctest runs tests with stderr on a pipe, as a batch job's log is: the
// line must then come as plain lines, at most every half minute (a run
// shorter than that writes none).
//
//===----------------------------------------------------------------------===//
#include "quarry/core/progress_line.h"

#include <gtest/gtest.h>

#include <unistd.h>

namespace quarry {
namespace {

TEST(ProgressLine, InALogAShortRunWritesNoProgress) {
  if (isatty(STDERR_FILENO))
    GTEST_SKIP() << "stderr is a terminal: the line is redrawn there";
  testing::internal::CaptureStderr();
  {
    ProgressLine line;
    EXPECT_FALSE(line.due()); // not before half a minute has passed
    line.show("step 1");
    line.show("step 2", /*final=*/true); // none was due: none at the end
    line.note("phase two");
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "phase two\n");
}

TEST(ProgressLine, DisabledWritesNothing) {
  testing::internal::CaptureStderr();
  {
    ProgressLine line(false);
    EXPECT_FALSE(line.due());
    line.show("step", /*final=*/true);
    line.note("phase");
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

} // namespace
} // namespace quarry
