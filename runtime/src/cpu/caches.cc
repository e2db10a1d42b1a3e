//===- caches.cc - The CPU's last-level cache, and emptying it ------------===//
#include "caches.h"

#include <cstdint>
#include <exception>
#include <fstream>
#include <mutex>
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

size_t last_level_cache_bytes() {
  static const size_t bytes = [] {
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
