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

namespace quarry::runtime::cpu {

/// Bytes of the largest cache CPU 0 shares, from sysfs (the size the
/// kernel reports; glibc's sysconf can count a whole package's); 0 when
/// unknown.
size_t last_level_cache_bytes();

/// Reads a buffer of twice `cache_bytes` from every thread kernels run
/// on, so that each core's private caches and the shared one hold only
/// its (clean) lines.
void evict_caches(size_t cache_bytes);

} // namespace quarry::runtime::cpu
