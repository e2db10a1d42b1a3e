//===- export.cc - Building the unverified rule pack ----------------------===//
#include "quarry/dedupe/export.h"

#include "quarry/core/error.h"
#include "quarry/dedupe/pruning.h"
#include "quarry/dedupe/shard.h"
#include "quarry/enumerate/gen_config.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#ifndef QUARRY_VERSION
#define QUARRY_VERSION "unknown"
#endif

namespace quarry {

Manifest check_run_directory(const std::string &dir) {
  const std::string manifest_path = dir + "/manifest.json";
  if (!std::filesystem::exists(manifest_path))
    throw Error(manifest_path +
                ": missing (the run is unfinished or DIR is not a run)");
  Manifest m = read_manifest(manifest_path);
  for (const ShardEntry &s : m.shards) {
    const std::string path = dir + "/" + s.file;
    if (!std::filesystem::exists(path))
      throw Error(path + ": missing shard");
    if (sha256_file(path) != s.sha256)
      throw Error(path + ": checksum mismatch (corrupt shard)");
  }
  return m;
}

RulePack export_candidates(const std::string &dir) {
  const Manifest m = check_run_directory(dir);
  const GenConfig cfg = parse_gen_config(m.config_text, m.config_file);
  struct Keyed {
    std::string key;
    CandidatePair pair;
  };
  std::vector<Keyed> all;
  for (const ShardEntry &s : m.shards) {
    const std::string path = dir + "/" + s.file;
    for (const CandidatePair &p : read_shard(path).pairs)
      all.push_back({renaming_key(cfg, p), p});
  }
  std::sort(all.begin(), all.end(),
            [](const Keyed &a, const Keyed &b) { return a.key < b.key; });
  RulePack pack;
  pack.header.tool_version = QUARRY_VERSION;
  pack.header.seed = m.seed;
  pack.header.settings = {
      {"generator.config", m.config_file},
      {"generator.config_sha256", m.config_sha256},
      {"generator.max_ops", std::to_string(m.max_ops)},
      {"generator.fingerprint_bits", std::to_string(m.fingerprint_bits)}};
  pack.header.description =
      "candidate substitutions from quarry generate (unverified)";
  for (size_t i = 0; i < all.size(); ++i) {
    const CandidatePair &p = all[i].pair;
    Rule r;
    char name[32];
    std::snprintf(name, sizeof name, "gen_%06zu", i);
    r.name = name;
    r.source = decode_graph(cfg, p.source.record, /*as_pattern=*/true);
    r.target = decode_graph(cfg, p.target.record, /*as_pattern=*/true);
    r.provenance.origin = "generated";
    r.provenance.source_file = m.config_file;
    r.provenance.source_index = static_cast<int64_t>(i);
    check_rule(r);
    pack.rules.push_back(std::move(r));
  }
  pack.header.operators = operators_used(pack.rules);
  return pack;
}

} // namespace quarry
