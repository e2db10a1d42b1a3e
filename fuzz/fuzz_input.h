//===- fuzz_input.h - What every fuzz target shares ------------*- C++ -*-===//
//
// A fuzz target feeds one input to one reader. quarry::Error is the reader
// refusing the input, which is what it should do with most mutations; any
// other exception, a crash, a leak or a sanitizer report is a finding.
// Readers that take a path get the bytes in a scratch directory of the
// process (fuzzing runs one input at a time per process).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/error.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <unistd.h>

namespace quarry::fuzz {

inline std::string_view as_text(const uint8_t *data, size_t size) {
  return {reinterpret_cast<const char *>(data), size};
}

/// The process's scratch directory: made on first use, removed at exit.
inline const std::filesystem::path &scratch_dir() {
  struct Dir {
    std::filesystem::path path;
    Dir()
        : path(std::filesystem::temp_directory_path() /
               ("quarry-fuzz-" + std::to_string(::getpid()))) {
      std::filesystem::create_directories(path);
    }
    ~Dir() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  };
  static const Dir dir;
  return dir.path;
}

/// Writes `bytes` to `name` in the scratch directory; returns its path.
inline std::string scratch_file(const std::string &name,
                                std::string_view bytes) {
  const auto path = scratch_dir() / name;
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path.string();
}

/// What `read()` returns, or nullopt when it refuses the input with
/// quarry::Error; anything else it throws escapes, as a finding.
template <class Read>
auto accepted(Read read) -> std::optional<decltype(read())> {
  try {
    return read();
  } catch (const Error &) {
    return std::nullopt;
  }
}

/// What `read()` returns from what quarry itself wrote (a round trip): a
/// refusal there is a finding.
template <class Read> auto must_accept(Read read, const char *what) {
  try {
    return read();
  } catch (const Error &e) {
    std::fprintf(stderr, "fuzz: %s was refused: %s\n", what, e.what());
    std::abort();
  }
}

/// A property that must hold for every accepted input (a round trip); a
/// failure is a finding, reported with what differs.
inline void require(bool holds, const char *what) {
  if (!holds) {
    std::fprintf(stderr, "fuzz: property failed: %s\n", what);
    std::abort();
  }
}

} // namespace quarry::fuzz
