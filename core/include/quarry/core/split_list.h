//===- split_list.h - Comma-separated flag values ---------------*- C++ -*-===//
//
// Flags such as --sizes 1,2,3 or --models bert,nasrnn, read by the command
// line and the benchmarks alike.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace quarry {

/// The comma-separated items of `s`, in order ("a,,b" keeps the empty one,
/// so a caller can report it).
inline std::vector<std::string> split_list(const std::string &s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    out.push_back(item);
  return out;
}

} // namespace quarry
