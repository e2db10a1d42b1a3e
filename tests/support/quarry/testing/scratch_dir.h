//===- scratch_dir.h - A temporary directory for one test -----*- C++ -*-===//
//
// Tests that write files (shards, caches, packs) get a directory of their
// own under the system's temporary directory, named after the process and
// the running test so parallel ctest runs never share one, and removed with
// everything in it when the test ends, pass or fail.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace quarry::testing {

class ScratchDir {
public:
  ScratchDir() {
    const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = "quarry_" + std::to_string(::getpid());
    if (info)
      name += std::string("_") + info->test_suite_name() + "_" + info->name();
    // Parameterized tests are named "Prefix/Suite.Name/0": one level only.
    std::replace(name.begin(), name.end(), '/', '_');
    path_ = std::filesystem::temp_directory_path() / name;
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ignored; // never throw from a destructor
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir &) = delete;
  ScratchDir &operator=(const ScratchDir &) = delete;

  /// The path of `name` inside the directory.
  std::string file(const std::string &name) const { return path_ / name; }
  const std::filesystem::path &path() const { return path_; }

private:
  std::filesystem::path path_;
};

} // namespace quarry::testing
