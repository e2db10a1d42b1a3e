//===- caches.h - The CPU's last-level cache, and emptying it --*- C++ -*-===//
//
// A network whose weights exceed the last-level cache reads each weight
// from memory on every run; an operator timed alone, run after run, finds
// its weights in cache instead (a 1 MB matrix-vector product runs 1.4x
// faster so). Measuring such a network's operators with the caches
// emptied before each run times them as the network runs them.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <vector>

namespace quarry::runtime::cpu {

/// Bytes of the largest cache CPU 0 shares, as this process's reads find
/// it: the size sysfs states (the kernel's; glibc's sysconf can count a
/// whole package's), or less where reads of less already come at the
/// speed of memory (reading_speed_cache_bytes on a probe, once); 0 when
/// unknown.
size_t last_level_cache_bytes();

/// How long reading a buffer of each of `sizes` (ascending, the last the
/// stated size) took per 64-byte line, read over and over.
struct CacheProbe {
  std::vector<size_t> sizes;
  std::vector<double> ns_per_line;
};

/// The cache the probe found: the stated size where reads stay at one
/// speed (within 1.5x) or slow only past half of it (reading a cache's
/// whole size over and over misses in it whatever it replaces); else the
/// largest size read at a speed nearer the fastest than the slowest.
size_t reading_speed_cache_bytes(const CacheProbe &probe);

/// Reads a buffer of twice `cache_bytes` from every thread kernels run
/// on, so that each core's private caches and the shared one hold only
/// its (clean) lines.
void evict_caches(size_t cache_bytes);

} // namespace quarry::runtime::cpu
