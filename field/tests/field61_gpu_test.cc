//===- field61_gpu_test.cc - Device field arithmetic equals the host's ----===//
//
// Exits 77, which ctest reports as skipped, when no CUDA device is present.
//
//===----------------------------------------------------------------------===//
#include "field61_device.h"
#include "quarry/field/field61.h"

#include <gtest/gtest.h>

#include <cstdio>

namespace quarry {
namespace {

TEST(Field61Gpu, FmaMatchesHost) {
  const size_t n = 1 << 16;
  std::vector<uint64_t> a(n), b(n), c(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = field61::scramble(i, 1);
    b[i] = field61::scramble(i, 2);
    c[i] = field61::scramble(i, 3);
  }
  a[0] = b[0] = field61::kP - 1; // the largest product
  const auto out = cuda::field61_fma(a, b, c);
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(out[i], field61::add(field61::mul(a[i], b[i]), c[i])) << i;
}

} // namespace
} // namespace quarry

int main(int argc, char **argv) {
  if (quarry::cuda::device_count() == 0) {
    std::printf("no CUDA device: skipped\n");
    return 77;
  }
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
