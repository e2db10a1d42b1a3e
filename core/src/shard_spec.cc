//===- shard_spec.cc - One of N parts of a job ----------------------------===//
#include "quarry/core/shard_spec.h"

#include "quarry/core/error.h"

#include <charconv>

namespace quarry {

namespace {

/// A decimal int of all of `s`, or -1.
int whole_int(std::string_view s) {
  int v = -1;
  const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), v);
  return error == std::errc() && end == s.data() + s.size() && !s.empty() ? v
                                                                          : -1;
}

} // namespace

std::string ShardSpec::str() const {
  return std::to_string(index) + "/" + std::to_string(count);
}

std::string ShardSpec::file_name() const {
  return "shard-" + std::to_string(index) + "-of-" + std::to_string(count) +
         ".json";
}

ShardSpec parse_shard(std::string_view text) {
  const size_t slash = text.find('/');
  ShardSpec s{-1, -1};
  if (slash != std::string_view::npos) {
    s.index = whole_int(text.substr(0, slash));
    s.count = whole_int(text.substr(slash + 1));
  }
  if (s.index < 0 || s.count < 1 || s.index >= s.count)
    throw Error("--shard expects I/N with 0 <= I < N, got '" +
                std::string(text) + "'");
  return s;
}

} // namespace quarry
