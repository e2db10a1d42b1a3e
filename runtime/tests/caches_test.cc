//===- caches_test.cc - The last-level cache a process's reads find -------===//
#include "cpu/caches.h"

#include <gtest/gtest.h>

namespace quarry::runtime::cpu {
namespace {

constexpr size_t MiB = size_t{1} << 20;

CacheProbe probe(std::vector<double> ns_per_line, size_t stated) {
  CacheProbe p;
  for (size_t s = 4 * MiB; s < stated; s *= 2)
    p.sizes.push_back(s);
  p.sizes.push_back(stated);
  p.ns_per_line = std::move(ns_per_line);
  return p;
}

TEST(Caches, TheStatedSizeWhereReadsKeepOneSpeed) {
  // Slower as they grow, but within 1.5x: one cache throughout.
  EXPECT_EQ(
      reading_speed_cache_bytes(probe({2.0, 2.4, 2.6, 2.8, 2.9}, 64 * MiB)),
      64 * MiB);
}

TEST(Caches, TheStatedSizeWhereReadsSlowOnlyPastHalfOfIt) {
  // Reading a cache's whole size over and over misses in it.
  EXPECT_EQ(reading_speed_cache_bytes(probe({2.2, 2.3, 2.4, 4.5}, 32 * MiB)),
            32 * MiB);
}

TEST(Caches, LessWhereReadsComeAtMemorysSpeedFarBelowTheStatedSize) {
  // A virtual machine told of its host's 480 MiB: memory's speed from
  // 128 MiB on (a probe of the machine this was seen on).
  const CacheProbe vm =
      probe({2.43, 2.20, 2.22, 2.24, 2.62, 3.59, 4.14, 4.20}, 480 * MiB);
  ASSERT_EQ(vm.sizes.size(), vm.ns_per_line.size());
  EXPECT_EQ(reading_speed_cache_bytes(vm), 64 * MiB);
  // Slow from the smallest read on: the smallest.
  EXPECT_EQ(
      reading_speed_cache_bytes(probe({9, 2, 2, 2, 2, 2, 2, 9}, 480 * MiB)),
      4 * MiB);
}

TEST(Caches, NoProbeNoCache) {
  EXPECT_EQ(reading_speed_cache_bytes(CacheProbe{}), 0u);
}

} // namespace
} // namespace quarry::runtime::cpu
