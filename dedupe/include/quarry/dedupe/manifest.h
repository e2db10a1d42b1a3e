//===- manifest.h - What a generator run produced ----------------*- C++
//-*-===//
//
// DIR/manifest.json is written last, atomically, by rank 0: the config (its
// text, so the shards can be decoded without the original file), the seed,
// rank count, every shard with its SHA-256, and the totals of each stage.
// A directory with a manifest holds a finished run; the manifest is also
// the run's machine-readable summary.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace quarry {

inline constexpr std::string_view kManifestFormat = "quarry.generate.v1";

struct ShardEntry {
  std::string file; ///< name relative to the run directory
  std::string sha256;
  uint64_t bytes = 0;
  uint64_t pairs = 0;
};

struct Manifest {
  std::string config_file; ///< base name of the config
  std::string config_text;
  std::string config_sha256;
  uint64_t seed = 0;
  int max_ops = 0;
  int ranks = 1;
  int fingerprint_bits = 64;
  std::vector<ShardEntry> shards;
  /// Stage name -> count, in pipeline order (graphs, classes, ...).
  std::vector<std::pair<std::string, uint64_t>> totals;
  double seconds = 0;
  uint64_t peak_rss_bytes = 0; ///< largest peak resident size of any rank
};

void write_manifest(const std::string &path, const Manifest &m);
/// Throws quarry::Error naming `path` on a missing or malformed manifest.
Manifest read_manifest(const std::string &path);

/// Hex SHA-256 of bytes / of a file's contents.
std::string sha256_hex(std::string_view bytes);
std::string sha256_file(const std::string &path);

} // namespace quarry
