//===- memory_limit.h - What this process may still allocate ----*- C++ -*-===//
//
// Work whose memory grows with its input (a model's weights) is sized
// before it starts, so that a model too large for the machine or for
// `ulimit -v` is refused in one line naming what is too big, rather than
// killed by the system or crashing inside an allocation.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace quarry {

/// How many more bytes this process may allocate, and what limits it.
struct MemoryLimit {
  uint64_t bytes = 0;
  /// "ulimit -v" or "the machine's available memory".
  std::string source;
};

/// The smaller of what RLIMIT_AS (`ulimit -v`) leaves beside the address
/// space the process has now and the memory the system reports available
/// (MemAvailable); nullopt when neither is known.
std::optional<MemoryLimit> allocatable_memory();

/// Throws quarry::Error "`what` needs about N GB, more than this process
/// may allocate: M GB (source)" when `bytes` is past `limit`; `what` names
/// the work and its largest part.
void refuse_past(const std::optional<MemoryLimit> &limit, uint64_t bytes,
                 const std::string &what);

/// `bytes` for a reader: "512 B", "3.2 MB", "8.2 GB" (powers of 1000).
std::string byte_size_text(uint64_t bytes);

} // namespace quarry
