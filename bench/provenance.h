//===- provenance.h - What a benchmark's JSON says of itself ---*- C++ -*-===//
//
// Every result names the commit of the sources it was built from, the
// date, the command and the processor (provenance()); a result from a rule
// pack names the pack's content hash (file_hash()); the device a backend
// ran on is its own device_name(). Paths are written relative to the
// sources or to ~, never as this machine's directories.
// QUARRY_SOURCE_DIR is defined by bench/CMakeLists.txt.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/file_io.h"
#include "quarry/core/hash.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>

namespace quarry::bench {

/// What `cmd` prints, without its trailing newline ("" where it fails).
inline std::string command_output(const std::string &cmd) {
  std::string out;
  if (FILE *p = popen(cmd.c_str(), "r")) {
    char buf[64];
    while (std::fgets(buf, sizeof buf, p))
      out += buf;
    pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' '))
    out.pop_back();
  return out;
}

/// The commit the benchmark's sources are at ("unknown" outside git),
/// with "-dirty" where tracked files differ from it: a result measured
/// on changes not yet committed names no commit it came from.
inline std::string source_commit() {
  const std::string git = "git -C '" QUARRY_SOURCE_DIR "' ";
  const std::string head =
      command_output(git + "rev-parse --short HEAD 2>/dev/null");
  if (head.empty())
    return "unknown";
  const bool dirty =
      !command_output(git + "status --porcelain --untracked-files=no "
                            "2>/dev/null")
           .empty();
  return dirty ? head + "-dirty" : head;
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

/// The processor as /proc/cpuinfo names it, with its family and model:
/// "AMD EPYC 9B45 (family 26 model 2)"; "unknown" where it says nothing.
inline std::string cpu_name() {
  std::ifstream info("/proc/cpuinfo");
  std::string line, name, family, model;
  const auto value = [&] { return line.substr(line.find(':') + 2); };
  while (std::getline(info, line) && (name.empty() || model.empty())) {
    if (line.starts_with("model name") && name.empty())
      name = value();
    else if (line.starts_with("cpu family") && family.empty())
      family = value();
    else if (line.starts_with("model\t") && model.empty())
      model = value();
  }
  if (name.empty())
    return "unknown";
  return family.empty() ? name
                        : name + " (family " + family + " model " + model + ")";
}

/// A file's content hash (hex), naming exactly which rule pack a result
/// came from.
inline std::string file_hash(const std::string &path) {
  return hash_hex(hash_bytes(read_file_bytes(path)));
}

/// What every result JSON records of itself: commit, date, command and
/// processor.
inline nlohmann::json provenance(int argc, char **argv) {
  return {{"commit", source_commit()},
          {"date", utc_now()},
          {"command", command_line(argc, argv)},
          {"cpu", cpu_name()}};
}

} // namespace quarry::bench
