//===- caches.cc - The CPU's last-level cache, and emptying it ------------===//
#include "caches.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>
#include <fstream>
#include <mutex>
#include <new>
#include <string>
#include <vector>

namespace quarry::runtime::cpu {

namespace {

/// "32768K" -> 33554432; 0 when unreadable.
size_t parse_size(const std::string &text) {
  size_t pos = 0;
  unsigned long long n = 0;
  try {
    n = std::stoull(text, &pos);
  } catch (const std::exception &) {
    return 0;
  }
  const char unit = pos < text.size() ? text[pos] : ' ';
  if (unit == 'K')
    n <<= 10;
  else if (unit == 'M')
    n <<= 20;
  return static_cast<size_t>(n);
}

} // namespace

size_t reading_speed_cache_bytes(const CacheProbe &probe) {
  const std::vector<double> &t = probe.ns_per_line;
  if (t.empty())
    return 0;
  const size_t stated = probe.sizes.back();
  const auto [fastest, slowest] = std::minmax_element(t.begin(), t.end());
  if (*slowest < 1.5 * *fastest)
    return stated;
  const double midway = (*fastest + *slowest) / 2;
  size_t found = 0;
  for (size_t k = 0; k < t.size() && t[k] <= midway; ++k)
    found = probe.sizes[k];
  if (found == 0)
    return probe.sizes.front(); // slow from the start: assume the least
  return 2 * found >= stated ? stated : found;
}

namespace {

/// Bytes of the largest cache CPU 0 shares, as sysfs states it; 0 when
/// unreadable.
size_t stated_last_level_cache_bytes() {
  int best_level = 0;
  size_t best = 0;
  for (int i = 0;; ++i) {
    const std::string dir =
        "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i);
    std::ifstream level_file(dir + "/level"), size_file(dir + "/size");
    if (!level_file || !size_file)
      break;
    int level = 0;
    std::string size;
    level_file >> level;
    size_file >> size;
    if (level >= best_level) {
      best_level = level;
      best = parse_size(size);
    }
  }
  return best;
}

/// Reads of one word per line of buffers from 4 MiB, doubling, up to
/// `stated` (at most 1 GiB), on this thread; the fastest of three passes.
CacheProbe probe_reads(size_t stated) {
  constexpr size_t kSmallest = size_t{4} << 20, kLargest = size_t{1} << 30;
  constexpr size_t kLineWords = 64 / sizeof(uint64_t);
  CacheProbe probe;
  const size_t largest = std::min(stated, kLargest);
  for (size_t s = kSmallest; s < largest; s *= 2)
    probe.sizes.push_back(s);
  probe.sizes.push_back(largest);
  std::vector<uint64_t> buffer(largest / sizeof(uint64_t), 1);
  static volatile uint64_t sink = 0;
  for (const size_t bytes : probe.sizes) {
    const size_t lines = bytes / 64;
    double best = 0;
    for (int pass = 0; pass < 4; ++pass) { // the first brings it in
      const auto start = std::chrono::steady_clock::now();
      uint64_t sum = 0;
      for (size_t l = 0; l < lines; ++l)
        sum += buffer[l * kLineWords];
      sink = sink + sum;
      const double ns = std::chrono::duration<double, std::nano>(
                            std::chrono::steady_clock::now() - start)
                            .count() /
                        static_cast<double>(lines);
      if (pass == 1 || (pass > 1 && ns < best))
        best = ns;
    }
    probe.ns_per_line.push_back(best);
  }
  return probe;
}

} // namespace

size_t last_level_cache_bytes() {
  static const size_t bytes = [] {
    const size_t stated = stated_last_level_cache_bytes();
    // Below twice the smallest probe there is nothing to tell apart.
    if (stated < size_t{8} << 20)
      return stated;
    try {
      return reading_speed_cache_bytes(probe_reads(stated));
    } catch (const std::bad_alloc &) {
      return stated; // under a memory limit smaller than the probe
    }
  }();
  return bytes;
}

void evict_caches(size_t cache_bytes) {
  // One word of every 64-byte line read: what the caches held is
  // replaced by clean lines, so that the kernel timed next does not pay
  // for writing this buffer back.
  static std::mutex mutex;
  static std::vector<uint64_t> buffer;
  static volatile uint64_t sink = 0;
  const std::lock_guard lock(mutex);
  const size_t words = 2 * cache_bytes / sizeof(uint64_t);
  if (buffer.size() < words)
    buffer.assign(words, 1);
  constexpr size_t kLineWords = 64 / sizeof(uint64_t);
  const uint64_t *data = buffer.data();
  const auto lines = static_cast<int64_t>(words / kLineWords);
  uint64_t sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
  for (int64_t l = 0; l < lines; ++l)
    sum += data[l * kLineWords];
  sink = sink + sum;
}

} // namespace quarry::runtime::cpu
