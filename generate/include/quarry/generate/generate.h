//===- generate.h - The distributed generator --------------------*- C++
//-*-===//
//
// run_generate() is `quarry generate`: every rank enumerates its work units
// (enumerate/), streaming graph records into per-batch files under
// DIR/batches/; records are then routed to the rank that owns their
// fingerprint in bounded MPI_Alltoallv rounds; each rank forms and checks
// its classes and candidate pairs (dedupe/), pairs are routed again by
// renaming key so duplicates meet, pruned, and written as one HDF5 shard per
// rank; rank 0 writes DIR/manifest.json last. A killed run restarted with
// the same command reuses every finished batch and ends with the same
// shards. docs/GENERATOR.md describes the whole flow.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/error.h"
#include "quarry/dedupe/manifest.h"
#include "quarry/generate/comm.h"

#include <cstdint>
#include <string>

namespace quarry {

struct GenerateOptions {
  std::string config_path;
  std::string out_dir;
  int max_ops = 3;
  uint64_t seed = 1;
  bool quiet = false;        ///< no progress line even on a terminal
  bool keep_batches = false; ///< keep DIR/batches/ after a finished run
  /// Records each rank sends per exchange round (bounds memory in flight).
  uint64_t exchange_batch = uint64_t{1} << 20;
  /// Memory for graph records per rank; more records are classified in
  /// several passes over the batch files.
  uint64_t memory_per_rank = uint64_t{4} << 30;
  /// Work units per resumable batch file.
  int units_per_batch = 64;
  /// Test only: keep this many low bits of the routing fingerprint, so that
  /// unequal graphs collide and the exact check must reject them.
  int fingerprint_bits = 64;
  /// Test only: end the process abruptly (as a kill would) after writing
  /// this many batch files on rank `exit_rank`.
  int exit_after_batches = -1;
  int exit_rank = 0;
};

/// An error every rank raises together (bad flags, config or directory);
/// only rank 0's message is meaningful, and no rank needs MPI_Abort.
class CollectiveError : public Error {
public:
  using Error::Error;
};

struct GenerateOutcome {
  Manifest manifest;
  bool already_complete = false; ///< DIR held this finished run already
  /// Batch files an interrupted attempt had finished, kept, not redone
  /// (all ranks together).
  uint64_t resumed_batches = 0;
};

/// Runs (or resumes, or recognises as finished) a generator run. Collective:
/// every rank calls it. Errors are quarry::Error.
GenerateOutcome run_generate(const GenerateOptions &opts, const Comm &comm);

} // namespace quarry
