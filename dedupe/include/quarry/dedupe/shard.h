//===- shard.h - Candidate shards in HDF5 ------------------------*- C++
//-*-===//
//
// One file per rank, candidates-r00003-of-00008.h5:
//   /graphs        uint8  [n, 48]  graph records (enumerate/graph_code.h)
//   /fingerprints  uint64 [n, 2]   output hashes under the two evaluations
//   /pairs         uint32 [m, 2]   (source, target) rows of /graphs
//   attributes     format = "quarry.candidates.v1", rank, ranks, and the
//                  per-stage counts of this rank (stage_<name>, int64)
// Written to a temporary name and renamed, so a shard is whole or absent,
// in the HDF5 1.8 file format, whose metadata HDF5 checks against checksums.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/dedupe/candidate.h"

#include <string>
#include <utility>
#include <vector>

namespace quarry {

inline constexpr std::string_view kShardFormat = "quarry.candidates.v1";

struct Shard {
  int rank = 0, ranks = 1;
  std::vector<CandidatePair> pairs;
  std::vector<std::pair<std::string, int64_t>> stage_counts;
};

/// "candidates-r00003-of-00008.h5"
std::string shard_file_name(int rank, int ranks);

void write_shard(const std::string &path, const Shard &shard);
/// Throws quarry::Error naming `path` when the file is not a valid shard.
Shard read_shard(const std::string &path);

} // namespace quarry
