//===- split_list.h - Comma-separated flag values ---------------*- C++ -*-===//
//
// Flags such as --sizes 1,2,3 or --models bert,nasrnn, read by the command
// line and the benchmarks alike, and written back by the pipeline.
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

/// `items` separated by commas, each as `<<` writes it: join_list({1, 2})
/// is "1,2", which split_list reads back.
template <typename T> std::string join_list(const std::vector<T> &items) {
  std::ostringstream out;
  for (size_t i = 0; i < items.size(); ++i)
    out << (i ? "," : "") << items[i];
  return out.str();
}

} // namespace quarry
