//===- shard_spec.cc - One of N parts of a job ----------------------------===//
#include "quarry/core/shard_spec.h"

#include "quarry/core/error.h"

#include <charconv>
#include <filesystem>
#include <map>
#include <regex>
#include <set>

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

std::vector<std::string> shard_files(const std::string &dir) {
  static const std::regex name(R"(shard-(\d+)-of-(\d+)\.json)");
  if (!std::filesystem::is_directory(dir))
    throw Error(dir + ": not a directory");
  std::map<int, std::string> found;
  std::set<int> counts;
  for (const auto &entry : std::filesystem::directory_iterator(dir)) {
    std::smatch m;
    const std::string base = entry.path().filename().string();
    if (!std::regex_match(base, m, name))
      continue;
    const ShardSpec s = parse_shard(m[1].str() + "/" + m[2].str());
    counts.insert(s.count);
    found[s.index] = entry.path().string();
  }
  if (counts.empty())
    throw Error(dir + ": no shard-I-of-N.json files");
  if (counts.size() > 1)
    throw Error(dir + ": shard files of " + std::to_string(*counts.begin()) +
                " and of " + std::to_string(*counts.rbegin()) +
                " shards are mixed");
  const int count = *counts.begin();
  std::vector<std::string> files;
  for (int i = 0; i < count; ++i) {
    const ShardSpec s{i, count};
    if (!found.count(i))
      throw Error(dir + "/" + s.file_name() + ": missing (shard " + s.str() +
                  " has not run)");
    files.push_back(found[i]);
  }
  return files;
}

} // namespace quarry
