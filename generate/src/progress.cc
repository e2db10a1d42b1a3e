//===- progress.cc --------------------------------------------------------===//
#include "quarry/generate/progress.h"

#include <cstdio>

namespace quarry {

Progress::Progress(bool enabled) : line_(enabled) {}

void Progress::begin(const std::string &stage) {
  if (stage != stage_) {
    stage_ = stage;
    stage_start_ = Clock::now();
  }
}

void Progress::update(const std::string &stage, uint64_t count,
                      const char *what) {
  begin(stage);
  if (line_.due())
    line_.show(text(count, what));
}

void Progress::done(const std::string &stage, uint64_t count,
                    const char *what) {
  begin(stage);
  line_.show(text(count, what), /*final=*/true);
  stage_.clear();
}

void Progress::finish(uint64_t count, const char *what) {
  const double s =
      std::chrono::duration<double>(Clock::now() - run_start_).count();
  char buf[256];
  std::snprintf(buf, sizeof buf, "done: %llu %s in %.1f s",
                static_cast<unsigned long long>(count), what, s);
  line_.show(buf, /*final=*/true);
  stage_.clear();
}

std::string Progress::text(uint64_t count, const char *what) const {
  const double s =
      std::chrono::duration<double>(Clock::now() - stage_start_).count();
  const double rate = s > 0 ? static_cast<double>(count) / s : 0;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s: %llu %s, %.0f/s, %.1f s", stage_.c_str(),
                static_cast<unsigned long long>(count), what, rate, s);
  return buf;
}

} // namespace quarry
