//===- pointwise_loops_test.cc - The cpu's loops for pointwise functions --===//
#include "cpu/pointwise_loops.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace quarry::runtime::cpu {
namespace {

/// How many floats lie between a and b (same sign).
int64_t ulps_apart(float a, float b) {
  if (a == b)
    return 0;
  if (std::signbit(a) != std::signbit(b))
    return std::numeric_limits<int64_t>::max();
  int32_t ia, ib;
  std::memcpy(&ia, &a, sizeof ia);
  std::memcpy(&ib, &b, sizeof ib);
  return std::abs(static_cast<int64_t>(ia) - ib);
}

TEST(PointwiseLoops, RationalErfIsWithinEightUlpsOfTheCLibrarys) {
  int64_t worst = 0;
  float at = 0;
  auto check = [&](float x) {
    const int64_t u = ulps_apart(rational_erf(x), std::erf(x));
    if (u > worst) {
      worst = u;
      at = x;
    }
  };
  for (float x = -6.0f; x <= 6.0f; x += 1.0f / 4096)
    check(x);
  // Tiny arguments, where erf(x) is about 2x / sqrt(pi): relative accuracy.
  for (float x = 1e-30f; x < 1.0f; x *= 1.01f) {
    check(x);
    check(-x);
  }
  EXPECT_LE(worst, 8) << "at x = " << at;
  EXPECT_EQ(rational_erf(0.0f), 0.0f);
  EXPECT_EQ(rational_erf(std::numeric_limits<float>::infinity()), 1.0f);
  EXPECT_EQ(rational_erf(-std::numeric_limits<float>::infinity()), -1.0f);
  EXPECT_TRUE(std::isnan(rational_erf(std::nanf(""))));
}

/// x sigmoid(x) in double.
double exact_silu(float x) {
  return x / (1.0 + std::exp(-static_cast<double>(x)));
}

TEST(PointwiseLoops, FastSiluIsWithinOneHundredThousandthOfTheExactValue) {
  double worst = 0;
  float at = 0;
  auto check = [&](float x) {
    const double e = exact_silu(x);
    const double r = std::fabs(fast_silu(x) - e) / std::fabs(e);
    if (r > worst) {
      worst = r;
      at = x;
    }
  };
  for (float x = -80.0f; x <= 80.0f; x += 1.0f / 1024)
    if (x != 0.0f)
      check(x);
  for (float x = 1e-30f; x < 1.0f; x *= 1.01f) {
    check(x);
    check(-x);
  }
  EXPECT_LE(worst, 1e-5) << "at x = " << at;
  // Where e^-x leaves float the result is 0 (the reference's x / inf).
  for (float x = -80.0f; x > -200.0f; x -= 0.25f) {
    EXPECT_LE(std::fabs(fast_silu(x)), 1e-30f) << "at x = " << x;
    EXPECT_LE(fast_silu(x), 0.0f) << "at x = " << x;
  }
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(fast_silu(0.0f), 0.0f);
  EXPECT_EQ(fast_silu(inf), inf);
  EXPECT_EQ(fast_silu(1e30f), 1e30f);
  // As ops::pointwise_value: -inf / (1 + e^inf).
  EXPECT_TRUE(std::isnan(fast_silu(-inf)));
  EXPECT_TRUE(std::isnan(
      ops::pointwise_value(ops::PointwiseFn::Silu, 0.0f, 0.0f, -inf)));
  EXPECT_TRUE(std::isnan(fast_silu(std::nanf(""))));
}

TEST(PointwiseLoops, EveryElementOnEveryThreadIsTheFunctionOfIt) {
  // Enough elements for the threads to split them, a count that is no
  // multiple of a cache line.
  const int64_t n = (1 << 17) + 5;
  std::vector<float> x(n), y(n, -7.0f);
  for (int64_t i = 0; i < n; ++i)
    x[i] = static_cast<float>(i % 1000) / 125.0f - 4.0f;
  omp_set_num_threads(2);
  pointwise_loop(ops::PointwiseFn::Cos, 0, 0, x.data(), y.data(), n);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(y[i], std::cos(x[i])) << "element " << i;
  // The vector builds may contract products and sums (FMA): within the
  // bounds of the element functions, not bitwise the scalar build.
  pointwise_loop(ops::PointwiseFn::Silu, 0, 0, x.data(), y.data(), n);
  for (int64_t i = 0; i < n; ++i) {
    if (x[i] != 0.0f) {
      ASSERT_LE(std::fabs(y[i] - exact_silu(x[i])), 1e-5 * std::fabs(y[i]))
          << "element " << i;
    }
  }
  pointwise_loop(ops::PointwiseFn::Erf, 0, 0, x.data(), y.data(), n);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_LE(ulps_apart(y[i], std::erf(x[i])), 8) << "element " << i;
  // In place.
  const std::vector<float> erf = y;
  pointwise_loop(ops::PointwiseFn::Neg, 0, 0, y.data(), y.data(), n);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(y[i], -erf[i]) << "element " << i;
}

// By one value per channel: channels innermost (nhwc rows) and outermost
// but for the batch (nchw planes), each with enough elements for the
// threads to split them and a channel count that is no multiple of a
// vector; a function that is not commutative, so that the operands'
// order shows; and in place.
TEST(PointwiseLoops, EachElementByItsChannelsValueInRowsAndInPlanes) {
  const int64_t outer = 2, channels = 37, inner = 1001;
  const int64_t n = outer * channels * inner;
  std::vector<float> x(n), y(channels), z(n, -7.0f);
  for (int64_t i = 0; i < n; ++i)
    x[i] = static_cast<float>(i % 977) / 100.0f;
  for (int64_t c = 0; c < channels; ++c)
    y[c] = static_cast<float>(c) - 0.5f;
  omp_set_num_threads(2);
  // nchw: [outer, channels, inner].
  channel_loop(ops::BroadcastFn::Sub, x.data(), y.data(), z.data(), outer,
               channels, inner);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(z[i], x[i] - y[i / inner % channels]) << "element " << i;
  // nhwc: [outer * inner, channels].
  channel_loop(ops::BroadcastFn::Div, x.data(), y.data(), z.data(),
               outer * inner, channels, 1);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(z[i], x[i] / y[i % channels]) << "element " << i;
  channel_loop(ops::BroadcastFn::Mul, z.data(), y.data(), z.data(),
               outer * inner, channels, 1);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(z[i], x[i] / y[i % channels] * y[i % channels])
        << "element " << i;
}

} // namespace
} // namespace quarry::runtime::cpu
