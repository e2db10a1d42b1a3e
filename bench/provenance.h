//===- provenance.h - What a benchmark's JSON says of itself ---*- C++ -*-===//
//
// Every result names the commit of the sources it was built from, the
// date and the command; the device is the backend's own device_name().
// Paths are written relative to the sources or to ~, never as this
// machine's directories.
// QUARRY_SOURCE_DIR must be defined by the build.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

namespace quarry::bench {

/// The commit the benchmark's sources are at ("unknown" outside git).
inline std::string source_commit() {
  const std::string cmd =
      "git -C '" QUARRY_SOURCE_DIR "' rev-parse --short HEAD 2>/dev/null";
  std::string out;
  if (FILE *p = popen(cmd.c_str(), "r")) {
    char buf[64];
    while (std::fgets(buf, sizeof buf, p))
      out += buf;
    pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' '))
    out.pop_back();
  return out.empty() ? "unknown" : out;
}

/// The time now, as 2026-11-27T14:30:00Z.
inline std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

/// `text` with every path in it made one a reader elsewhere can follow:
/// relative to the sources where inside them, from ~ where under $HOME.
inline std::string portable_paths(std::string text) {
  const auto replace_all = [&](const std::string &from, const std::string &to) {
    for (size_t at = text.find(from); at != std::string::npos;
         at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  };
  replace_all(QUARRY_SOURCE_DIR "/", "");
  if (const char *home = std::getenv("HOME"); home && *home)
    replace_all(std::string(home) + "/", "~/");
  return text;
}

/// The command line, its words joined by spaces, paths made portable.
inline std::string command_line(int argc, char **argv) {
  std::string command;
  for (int i = 0; i < argc; ++i)
    command += (i ? " " : "") + std::string(argv[i]);
  return portable_paths(command);
}

} // namespace quarry::bench
