//===- memory_limit_test.cc - Sizing work before it allocates -------------===//
#include "quarry/core/memory_limit.h"
#include "quarry/testing/error_of.h"

#include <gtest/gtest.h>

#include <sys/resource.h>

namespace quarry {
namespace {

using testing::error_of;

TEST(MemoryLimit, ByteSizesReadAsAPersonWritesThem) {
  EXPECT_EQ(byte_size_text(0), "0 B");
  EXPECT_EQ(byte_size_text(999), "999 B");
  EXPECT_EQ(byte_size_text(1500), "1.5 kB");
  EXPECT_EQ(byte_size_text(8'200'000'000), "8.2 GB");
}

TEST(MemoryLimit, RefusalNamesTheWorkBothSizesAndTheLimit) {
  const MemoryLimit limit{2'000'000, "ulimit -v"};
  EXPECT_NO_THROW(refuse_past(limit, 2'000'000, "x"));
  EXPECT_NO_THROW(refuse_past(std::nullopt, 1ull << 60, "x"));
  EXPECT_EQ(error_of([&] { refuse_past(limit, 3'100'000, "m.onnx: import"); }),
            "m.onnx: import needs about 3.1 MB, more than this process may "
            "allocate: 2.0 MB (ulimit -v)");
}

TEST(MemoryLimit, UlimitIsWhatIsLeftBesideTheAddressSpace) {
  struct rlimit old {};
  ASSERT_EQ(::getrlimit(RLIMIT_AS, &old), 0);
  const auto before = allocatable_memory();
  ASSERT_TRUE(before.has_value()); // MemAvailable, on Linux
  // A limit a little past the present address space leaves a little.
  const rlim_t present = 64ull << 30;
  if (old.rlim_max != RLIM_INFINITY && old.rlim_max < present)
    GTEST_SKIP() << "the hard limit is below 64 GiB";
  struct rlimit tight = old;
  tight.rlim_cur = present;
  ASSERT_EQ(::setrlimit(RLIMIT_AS, &tight), 0);
  const auto within = allocatable_memory();
  ASSERT_EQ(::setrlimit(RLIMIT_AS, &old), 0);
  ASSERT_TRUE(within.has_value());
  EXPECT_LE(within->bytes, present);
  if (within->source == "ulimit -v") {
    EXPECT_LT(within->bytes, present); // the process's own space is used
  }
}

} // namespace
} // namespace quarry
