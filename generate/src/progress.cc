//===- progress.cc --------------------------------------------------------===//
#include "quarry/generate/progress.h"

#include <cstdio>
#include <unistd.h>

namespace quarry {

Progress::Progress(bool enabled) : enabled_(enabled && isatty(2)) {}

void Progress::update(const std::string &stage, uint64_t count,
                      const char *what) {
  if (!enabled_)
    return;
  const auto now = Clock::now();
  if (stage != stage_) {
    stage_ = stage;
    stage_start_ = now;
  }
  if (now - last_ < std::chrono::milliseconds(250))
    return;
  last_ = now;
  print(stage, count, what, false);
}

void Progress::done(const std::string &stage, uint64_t count,
                    const char *what) {
  if (!enabled_)
    return;
  if (stage != stage_) {
    stage_ = stage;
    stage_start_ = Clock::now();
  }
  print(stage, count, what, true);
  stage_.clear();
}

void Progress::note(const std::string &text) {
  if (enabled_)
    std::fprintf(stderr, "\r\033[K%s\n", text.c_str());
}

void Progress::print(const std::string &stage, uint64_t count, const char *what,
                     bool final) {
  const double s =
      std::chrono::duration<double>(Clock::now() - stage_start_).count();
  const double rate = s > 0 ? static_cast<double>(count) / s : 0;
  std::fprintf(stderr, "\r\033[K%s: %llu %s, %.0f/s, %.1f s%s", stage.c_str(),
               static_cast<unsigned long long>(count), what, rate, s,
               final ? "\n" : "");
  std::fflush(stderr);
}

} // namespace quarry
