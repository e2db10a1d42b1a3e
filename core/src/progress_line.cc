//===- progress_line.cc ---------------------------------------------------===//
#include "quarry/core/progress_line.h"

#include <cstdio>
#include <unistd.h>

namespace quarry {

namespace {
constexpr auto kTerminalInterval = std::chrono::milliseconds(250);
constexpr auto kLogInterval = std::chrono::seconds(30);
} // namespace

ProgressLine::ProgressLine(bool enabled)
    : enabled_(enabled), tty_(isatty(STDERR_FILENO) != 0), last_(Clock::now()) {
}

ProgressLine::~ProgressLine() { finish(); }

bool ProgressLine::due() const {
  if (!enabled_)
    return false;
  return Clock::now() - last_ >= (tty_ ? Clock::duration(kTerminalInterval)
                                       : Clock::duration(kLogInterval));
}

void ProgressLine::show(const std::string &text, bool final) {
  // In a log, a run too short for any line ends without one: its summary
  // says the same, and a failing command's stderr stays one line.
  const bool wanted = due() || (final && (tty_ || wrote_));
  if (!enabled_ || !wanted)
    return;
  wrote_ = true;
  last_ = Clock::now();
  if (tty_) {
    std::fprintf(stderr, "\r\033[K%s%s", text.c_str(), final ? "\n" : "");
    open_ = !final;
  } else {
    std::fprintf(stderr, "%s\n", text.c_str());
  }
  std::fflush(stderr);
}

void ProgressLine::note(const std::string &text) {
  if (!enabled_)
    return;
  finish();
  std::fprintf(stderr, "%s\n", text.c_str());
  std::fflush(stderr);
}

void ProgressLine::finish() {
  if (open_)
    std::fputc('\n', stderr);
  open_ = false;
}

} // namespace quarry
