//===- report.h - Shard result files ---------------------------*- C++ -*-===//
//
// Each shard writes one JSON file (format "quarry.validate-axioms.v1"),
// DIR/shard-I-of-N.json, rewritten atomically while it runs ("complete":
// false: the progress record an interrupted shard resumes from) and once
// more at the end. It holds the settings that make results comparable (the
// axiom files' hash, sizes, shard count, chunk size), every finished sweep
// chunk with its counts and described failures, the entailment checks
// (shard 0 runs them), and a summary: totals and per-axiom counts and
// times. `merge` combines the files of all shards into DIR/merged.json of
// the same format.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/validate_axioms/entailment.h"
#include "quarry/validate_axioms/sweep.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace quarry::validate_axioms {

struct ValidationReport {
  std::string axioms_file;
  uint64_t axioms_hash = 0;
  /// checker_identity() of the run that wrote it; "" in files written
  /// before files recorded it, which nothing resumes or merges.
  std::string checker;
  std::vector<int64_t> sizes;
  int shard = 0, shards = 1; ///< shards = N, shard = -1 when merged
  uint64_t chunk_size = 0;
  std::vector<std::string> checks; ///< lemmas, redundancy, consistency, sweep
  bool complete = false;
  double wall_seconds = 0;

  std::optional<std::vector<EntailmentResult>> lemmas, redundancy;
  std::optional<EntailmentResult> consistency;
  std::map<uint64_t, ChunkResult> chunks; ///< finished sweep chunks, by id
  uint64_t planned_chunks = 0;            ///< chunks of this shard (or all)
  /// The sweep's totals and per-axiom rows as read_report found them in
  /// the file (report_json computes them afresh from the chunks and the
  /// axiom file; failures are in the chunks).
  std::optional<SweepResult> summary;
};

/// Whether the report shows a problem: a sweep failure, an inconsistency, a
/// lemma that does not follow or a redundant axiom.
bool has_problems(const ValidationReport &r);

/// The report as JSON text, with its summary (`file` names the axioms of
/// the chunks).
std::string report_json(const verify::AxiomFile &file,
                        const ValidationReport &r);

/// Reads a report; throws quarry::Error naming the file when it is
/// malformed.
ValidationReport read_report(const std::string &path);

/// "DIR/shard-I-of-N.json".
std::string shard_file(const std::string &dir, int shard, int shards);

} // namespace quarry::validate_axioms
