//===- test_files.h - Scratch files for the rules tests -------*- C++ -*-===//
#pragma once

#include "quarry/testing/error_of.h"
#include "quarry/testing/scratch_dir.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace quarry::testing {

inline std::string read_bytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_bytes(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

} // namespace quarry::testing
