//===- comm.cc - MPI collectives ------------------------------------------===//
#include "quarry/generate/comm.h"

#include "quarry/core/error.h"
#include "quarry/core/sanitizers.h"

#include <mpi.h>

#include <cstdlib>
#include <numeric>

#ifdef QUARRY_ADDRESS_SANITIZER
#include <sanitizer/lsan_interface.h>
#endif

namespace quarry {

namespace {

/// Open MPI keeps the state MPI_Init builds (its components, the process
/// map, hwloc's topology) until the process exits. LeakSanitizer is told to
/// ignore what the MPI runtime allocates while this lives; a suppression
/// file cannot name those libraries, which have no frame pointers for
/// LeakSanitizer's stack traces to pass through.
class MpiRuntimeAllocations {
public:
  MpiRuntimeAllocations() {
#ifdef QUARRY_ADDRESS_SANITIZER
    __lsan_disable();
#endif
  }
  ~MpiRuntimeAllocations() {
#ifdef QUARRY_ADDRESS_SANITIZER
    __lsan_enable();
#endif
  }
  MpiRuntimeAllocations(const MpiRuntimeAllocations &) = delete;
  MpiRuntimeAllocations &operator=(const MpiRuntimeAllocations &) = delete;
};

} // namespace

MpiSession::MpiSession(int *argc, char ***argv) {
  const MpiRuntimeAllocations ignored;
  int ready = 0;
  MPI_Initialized(&ready);
  if (!ready && MPI_Init(argc, argv) != MPI_SUCCESS)
    throw Error("MPI_Init failed");
}

MpiSession::~MpiSession() {
  const MpiRuntimeAllocations ignored;
  int done = 0;
  MPI_Finalized(&done);
  if (!done)
    MPI_Finalize();
}

void MpiSession::abort_all(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

Comm::Comm() {
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

void Comm::barrier() const { MPI_Barrier(MPI_COMM_WORLD); }

std::vector<uint64_t> Comm::sum(std::vector<uint64_t> v) const {
  MPI_Allreduce(MPI_IN_PLACE, v.data(), static_cast<int>(v.size()),
                MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return v;
}

uint64_t Comm::max(uint64_t v) const {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  return v;
}

std::vector<char>
Comm::all_to_all(const std::vector<std::vector<char>> &send) const {
  std::vector<int> send_counts(size_), recv_counts(size_), send_displs(size_),
      recv_displs(size_);
  std::vector<char> out_buf;
  for (int d = 0; d < size_; ++d) {
    if (send[d].size() > (1u << 31) - 1)
      throw Error("all_to_all: batch too large");
    send_counts[d] = static_cast<int>(send[d].size());
    send_displs[d] = static_cast<int>(out_buf.size());
    out_buf.insert(out_buf.end(), send[d].begin(), send[d].end());
  }
  MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT,
               MPI_COMM_WORLD);
  int64_t total = 0;
  for (int s = 0; s < size_; ++s) {
    recv_displs[s] = static_cast<int>(total);
    total += recv_counts[s];
  }
  if (total > (int64_t{1} << 31) - 1)
    throw Error("all_to_all: batch too large");
  std::vector<char> in(static_cast<size_t>(total));
  MPI_Alltoallv(out_buf.data(), send_counts.data(), send_displs.data(),
                MPI_BYTE, in.data(), recv_counts.data(), recv_displs.data(),
                MPI_BYTE, MPI_COMM_WORLD);
  return in;
}

std::vector<std::string> Comm::gather(const std::string &s) const {
  int len = static_cast<int>(s.size());
  std::vector<int> lens(size_);
  MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> displs(size_, 0);
  int total = 0;
  if (rank_ == 0)
    for (int r = 0; r < size_; ++r) {
      displs[r] = total;
      total += lens[r];
    }
  std::vector<char> all(static_cast<size_t>(total));
  MPI_Gatherv(s.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(),
              MPI_CHAR, 0, MPI_COMM_WORLD);
  std::vector<std::string> out;
  if (rank_ == 0)
    for (int r = 0; r < size_; ++r)
      out.emplace_back(all.data() + displs[r], lens[r]);
  return out;
}

} // namespace quarry
