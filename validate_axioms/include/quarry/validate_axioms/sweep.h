//===- sweep.h - The symbolic sweep over every small case -----*- C++ -*-===//
//
// All cases of all axioms and lemmas (case_space.h), in file order, are cut
// into chunks of a fixed number of consecutive cases of one axiom. Chunk ids
// do not depend on the shard count, and shard i of n takes the chunks whose
// id is i modulo n: a deterministic 1/n that interleaves cheap and
// expensive axioms. Chunks run in parallel (oneTBB); each chunk's result is
// reported as it finishes, so a driver can record progress and an
// interrupted shard resumes without redoing finished chunks.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/verify/axiom_file.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace quarry::validate_axioms {

struct SweepOptions {
  std::vector<int64_t> sizes{1, 2, 3, 4};
  int threads = 1;
  int shard = 0, shards = 1;
  uint64_t chunk_size = 64;
  double z3_timeout_s = 10;      ///< per element that needs a max decision
  size_t failures_per_chunk = 2; ///< failures described in full
};

struct Chunk {
  uint64_t id = 0;
  int axiom = 0; ///< index into AxiomFile::axioms
  uint64_t begin = 0, end = 0;
};

struct Failure {
  std::string axiom;
  uint64_t case_index = 0;
  std::string detail;
};

/// Counts of one chunk, one axiom or a whole sweep. A case is checked
/// (passed or failed) or skipped; filtered assignments are outside the
/// domain and not cases.
struct SweepCounts {
  uint64_t checked = 0, skipped = 0, failed = 0, filtered = 0;
  double seconds = 0; ///< CPU time of the threads that ran the chunks
  uint64_t cases() const { return checked + skipped; }
  SweepCounts &operator+=(const SweepCounts &o);
};

struct ChunkResult {
  uint64_t id = 0;
  int axiom = 0;
  SweepCounts counts;
  std::vector<Failure> failures;
};

struct AxiomSweep {
  std::string name;
  SweepCounts counts;
};

struct SweepResult {
  std::vector<AxiomSweep> axioms; ///< every axiom with a domain, file order
  SweepCounts total;
  std::vector<Failure> failures; ///< by axiom, then case
  uint64_t chunks = 0;
};

/// Every chunk of shard opts.shard of opts.shards.
std::vector<Chunk> plan_chunks(const verify::AxiomFile &file,
                               const SweepOptions &opts);

ChunkResult run_chunk(const verify::AxiomFile &file, const Chunk &chunk,
                      const SweepOptions &opts);

/// Runs the shard's chunks not in `done`, on opts.threads workers, calling
/// `on_chunk` (serialized) after each; returns the summary of all of them,
/// earlier ones included.
SweepResult
sweep(const verify::AxiomFile &file, const SweepOptions &opts,
      const std::map<uint64_t, ChunkResult> &done = {},
      const std::function<void(const ChunkResult &)> &on_chunk = {});

/// The summary of a set of chunk results (any shards' together).
SweepResult summarize(const verify::AxiomFile &file,
                      const std::vector<ChunkResult> &chunks);

} // namespace quarry::validate_axioms
