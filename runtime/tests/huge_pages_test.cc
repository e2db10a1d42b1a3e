//===- huge_pages_test.cc - Memory a program streams through every run ----===//
#include "cpu/huge_pages.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace quarry::runtime::cpu {
namespace {

uintptr_t address(const void *p) { return reinterpret_cast<uintptr_t>(p); }

TEST(HugePages, BlocksAreAlignedToAHugePage) {
  const HugePagesBlock block = huge_pages(3 * kHugePage + 1, "a test");
  ASSERT_NE(block.get(), nullptr);
  EXPECT_EQ(address(block.get()) % kHugePage, 0u);
  // The whole rounded size is there to write.
  std::memset(block.get(), 1, 4 * kHugePage);
}

TEST(StaticArena, PiecesAreCacheLineAlignedAndApart) {
  StaticArena arena;
  std::vector<std::pair<uintptr_t, size_t>> pieces;
  for (size_t bytes : {size_t{1}, size_t{100}, size_t{4096}, size_t{64},
                       size_t{3} << 20, size_t{7}})
    pieces.push_back({address(arena.allocate(bytes)), bytes});
  for (const auto &[at, bytes] : pieces) {
    EXPECT_EQ(at % 64, 0u) << bytes;
    std::memset(reinterpret_cast<void *>(at), 2, bytes);
  }
  std::sort(pieces.begin(), pieces.end());
  for (size_t i = 1; i < pieces.size(); ++i)
    EXPECT_GE(pieces[i].first, pieces[i - 1].first + pieces[i - 1].second);
  EXPECT_EQ(arena.used(), 64 + 128 + 4096 + 64 + (size_t{3} << 20) + 64);
}

TEST(StaticArena, SmallPiecesShareABlock) {
  StaticArena arena;
  const uintptr_t first = address(arena.allocate(1000));
  for (int i = 0; i < 100; ++i)
    EXPECT_LT(address(arena.allocate(1000)) - first, kHugePage);
}

TEST(StaticArena, APieceLargerThanABlockGetsItsOwnAndItsTailIsUsed) {
  StaticArena arena;
  const size_t big = 20 * kHugePage + 4096;
  const uintptr_t large = address(arena.allocate(big));
  EXPECT_EQ(large % kHugePage, 0u); // the start of a block of its own
  std::memset(reinterpret_cast<void *>(large), 3, big);
  // What the large block leaves over (it is rounded to whole huge pages)
  // takes the next piece that fits.
  const uintptr_t small = address(arena.allocate(4096));
  EXPECT_EQ(small, large + big);
}

} // namespace
} // namespace quarry::runtime::cpu
