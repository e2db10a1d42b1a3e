//===- proof_cache.h - Proof outcomes kept across runs --------*- C++ -*-===//
//
// `quarry verify --proof-cache DIR` looks every rule up by its hash before
// proving it, and records every new outcome, so a rerun, a resumed shard or
// a larger run (four operators after three) re-proves nothing it knows.
//
// DIR/cache.json names the axioms (by hash) the outcomes were proved from
// and the prover (Z3's version, quarry's encoding revision); a cache of
// other axioms or another prover is refused, never mixed. Outcomes live in
// DIR/results-*.jsonl, one JSON line each (the report's entry form), and
// each process appends to a file of its own: shards of an array job share
// a cache without locks, and a killed run loses at most the line it was
// writing (a last line without its newline is ignored).
//
// An outcome is reused when it was reached with the same --minimize-core;
// an unproved one only when the run gives Z3 no more time than it had.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/file_io.h"
#include "quarry/verify/verifier.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace quarry::verify {

class ProofCache {
public:
  /// Opens the cache in `dir`, creating it when absent, for proofs from
  /// the axioms `axioms_hash` (of `axioms_file`) under `opts`. Throws
  /// quarry::Error naming the file when it belongs to other axioms or a
  /// line of it is malformed.
  ProofCache(const std::string &dir, uint64_t axioms_hash,
             const std::string &axioms_file, const VerifyOptions &opts);
  ProofCache(const ProofCache &) = delete;
  ProofCache &operator=(const ProofCache &) = delete;

  /// An earlier outcome for `rule` that this run may reuse.
  std::optional<RuleResult> lookup(const Rule &rule) const;
  /// Appends `result` to this process's file. Safe to call concurrently.
  void record(const RuleResult &result);
  /// Outcomes read when the cache was opened.
  size_t size() const { return entries_.size(); }

private:
  struct Entry {
    RuleResult result;
    double timeout_s = 0;
  };
  void load(const std::string &path);
  void add(Entry e);

  std::string dir_;
  VerifyOptions opts_;
  std::map<uint64_t, Entry> entries_;
  std::mutex write_;
  std::unique_ptr<LineJournal> file_; ///< this process's, from the first record
};

} // namespace quarry::verify
