//===- fixture_run.h - A real run directory and test helpers -*- C++ -*-===//
//
// data/run holds the stage files of a small real run (data/README.md says
// how it was made). Tests work on a copy in their own scratch directory, so
// they may delete or corrupt files freely.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/file_io.h"
#include "quarry/pipeline/run_layout.h"
#include "quarry/testing/scratch_dir.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

namespace quarry::report::testing {

/// Copies the fixture run into `scratch`/run and returns its layout.
inline pipeline::RunLayout
copy_fixture_run(const quarry::testing::ScratchDir &scratch) {
  const std::string root = scratch.file("run");
  std::filesystem::copy(QUARRY_REPORT_FIXTURE_RUN, root,
                        std::filesystem::copy_options::recursive);
  return pipeline::RunLayout(root);
}

/// Replaces the file at `path` with `text`.
inline void overwrite(const std::string &path, const std::string &text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

/// Rewrites the JSON file at `path` after `edit(json&)` has changed it.
template <class F> void edit_json(const std::string &path, F &&edit) {
  nlohmann::json j = nlohmann::json::parse(read_file_bytes(path));
  edit(j);
  overwrite(path, j.dump(1));
}

/// How often `what` occurs in `text`.
inline size_t count(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + 1))
    ++n;
  return n;
}

} // namespace quarry::report::testing
