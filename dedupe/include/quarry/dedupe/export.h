//===- export.h - Candidate shards to a rule pack ----------------*- C++
//-*-===//
#pragma once

#include "quarry/dedupe/manifest.h"
#include "quarry/rulepack/rule_pack.h"

namespace quarry {

/// Reads a finished run directory: the manifest, then every shard it lists,
/// each checked against its SHA-256 (a missing or corrupt shard is an error
/// naming it). Rules are ordered by their renaming key, so the pack does not
/// depend on how many ranks produced the shards. Rules are unverified.
RulePack export_candidates(const std::string &dir);

/// The manifest of `dir` after checking that every shard is present and
/// intact.
Manifest check_run_directory(const std::string &dir);

} // namespace quarry
