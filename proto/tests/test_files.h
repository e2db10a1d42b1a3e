//===- test_files.h - Scratch files for the rules tests -------*- C++ -*-===//
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace quarry::testing {

/// A fresh directory for one test, removed with everything in it afterwards.
class ScratchDir {
public:
  ScratchDir() {
    const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            ("quarry_rules_" + std::to_string(::getpid()) + "_" +
             info->test_suite_name() + "_" + info->name());
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }

  std::string file(const std::string &name) const { return path_ / name; }
  const std::filesystem::path &path() const { return path_; }

private:
  std::filesystem::path path_;
};

inline std::string read_bytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_bytes(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

/// what() of the quarry::Error `f` throws, or "no error".
template <class F> std::string error_of(F &&f) {
  try {
    f();
  } catch (const Error &e) {
    return e.what();
  }
  return "no error";
}

} // namespace quarry::testing
