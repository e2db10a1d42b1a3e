//===- comm.h - The few MPI collectives the generator uses ------*- C++ -*-===//
//
// A thin layer over MPI_COMM_WORLD so the pipeline reads as what it does
// (route these bytes, add these counters) rather than as MPI calls. The
// same code runs as one rank without mpirun (MPI singleton).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace quarry {

/// MPI_Init on construction, MPI_Finalize on destruction.
class MpiSession {
public:
  MpiSession(int *argc, char ***argv);
  ~MpiSession();
  MpiSession(const MpiSession &) = delete;
  MpiSession &operator=(const MpiSession &) = delete;
  /// Ends every rank at once after an error on one (MPI_Abort).
  [[noreturn]] static void abort_all(int code);
};

class Comm {
public:
  Comm();
  int rank() const { return rank_; }
  int size() const { return size_; }

  void barrier() const;
  /// Element-wise sum / max over ranks, result on every rank.
  std::vector<uint64_t> sum(std::vector<uint64_t> v) const;
  uint64_t max(uint64_t v) const;
  /// Sends send[d] to rank d; returns what every rank sent here, in rank
  /// order. Each buffer must stay under 2 GiB (callers send in batches).
  std::vector<char>
  all_to_all(const std::vector<std::vector<char>> &send) const;
  /// Every rank's string, on rank 0 (empty elsewhere).
  std::vector<std::string> gather(const std::string &s) const;

private:
  int rank_ = 0, size_ = 1;
};

} // namespace quarry
