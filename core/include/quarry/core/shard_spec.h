//===- shard_spec.h - One of N parts of a job -------------------*- C++ -*-===//
//
// Sharded commands (`quarry validate-axioms`, `quarry verify`) take
// `--shard I/N`: this process does part I of N, and a merge combines the
// parts. Items are dealt round-robin (item k belongs to shard k mod N), so
// neighbouring items, which tend to cost alike, spread over the shards.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace quarry {

struct ShardSpec {
  int index = 0; ///< I, in 0..count-1
  int count = 1; ///< N

  /// Whether item `k` of the job is this shard's.
  bool holds(size_t k) const {
    return k % static_cast<size_t>(count) == static_cast<size_t>(index);
  }
  /// "I/N"
  std::string str() const;
  /// "shard-I-of-N.json", the name of a shard's result file.
  std::string file_name() const;
};

/// "I/N" with 0 <= I < N; throws quarry::Error quoting `text` otherwise.
ShardSpec parse_shard(std::string_view text);

/// The result files of every shard in `dir`, shard 0 first: the N files
/// shard-I-of-N.json of one N. Throws quarry::Error naming the directory
/// when it is none, holds no such file or files of different N, and naming
/// the file of a shard that is missing.
std::vector<std::string> shard_files(const std::string &dir);

} // namespace quarry
