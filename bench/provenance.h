//===- provenance.h - What a benchmark's JSON says of itself ---*- C++ -*-===//
//
// Every result names the commit of the sources it was built from, the
// date and the command; the device is the backend's own device_name().
// QUARRY_SOURCE_DIR must be defined by the build.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdio>
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

/// The command line, its words joined by spaces.
inline std::string command_line(int argc, char **argv) {
  std::string command;
  for (int i = 0; i < argc; ++i)
    command += (i ? " " : "") + std::string(argv[i]);
  return command;
}

} // namespace quarry::bench
