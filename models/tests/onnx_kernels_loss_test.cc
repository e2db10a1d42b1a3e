//===- onnx_kernels_loss_test.cc - Classification loss kernels ------------===//
//
// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss beyond ONNX's
// backend tests (which onnx_kernels_test.cc runs): each reduction worked
// by hand, ignore_index with and without weights, extra axes, and the
// operands they refuse in one line.
//
//===----------------------------------------------------------------------===//
#include "../src/onnx_attrs.h"
#include "../src/onnx_kernels.h"
#include "kernel_operands.h"

#include "quarry/testing/error_of.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace quarry {
namespace {

using namespace quarry::testing;
using onnx_io::add_attr;
using onnx_io::run_kernel;

constexpr int32_t kInt64 = onnx::TensorProto::INT64;
constexpr int64_t kOpset = 13;

onnx::NodeProto loss(const char *op, const std::string &reduction) {
  onnx::NodeProto n = node(op);
  add_attr(n, "reduction", reduction);
  return n;
}

TEST(OnnxKernelsLoss, NllPicksEachTargetsLogProbabilityAndReduces) {
  // Two samples of three classes; targets 2 and 0.
  const HeldValue x = value({2, 3}, {-1, -2, -3, -4, -5, -6});
  const HeldValue t = value({2}, {2, 0}, kInt64);
  auto none =
      run_kernel(loss("NegativeLogLikelihoodLoss", "none"), kOpset, {&x, &t});
  EXPECT_EQ(none[0].value.shape, (Shape{2}));
  EXPECT_EQ(none[0].value.data, (std::vector<float>{3, 4}));
  EXPECT_EQ(
      run_kernel(loss("NegativeLogLikelihoodLoss", "sum"), kOpset, {&x, &t})[0]
          .value.data,
      (std::vector<float>{7}));
  const auto mean =
      run_kernel(loss("NegativeLogLikelihoodLoss", "mean"), kOpset, {&x, &t});
  EXPECT_EQ(mean[0].value.shape, (Shape{}));
  EXPECT_EQ(mean[0].value.data, (std::vector<float>{3.5f}));

  // Weights 1, 1, 3: the mean divides by the targets' weights, 3 + 1.
  const HeldValue w = value({3}, {1, 1, 3});
  EXPECT_EQ(run_kernel(loss("NegativeLogLikelihoodLoss", "mean"), kOpset,
                       {&x, &t, &w})[0]
                .value.data,
            (std::vector<float>{(9.0f + 4.0f) / 4.0f}));
}

TEST(OnnxKernelsLoss, IgnoredTargetsCountForNothing) {
  // [N=1, C=2, d=3]: the middle position's target is ignore_index, which
  // need not be a class.
  const HeldValue x = value({1, 2, 3}, {-1, -2, -3, -4, -5, -6});
  const HeldValue t = value({1, 3}, {1, -100, 0}, kInt64);
  onnx::NodeProto n = loss("NegativeLogLikelihoodLoss", "none");
  add_attr(n, "ignore_index", int64_t{-100});
  auto out = run_kernel(n, kOpset, {&x, &t});
  EXPECT_EQ(out[0].value.shape, (Shape{1, 3}));
  EXPECT_EQ(out[0].value.data, (std::vector<float>{4, 0, 3}));
  onnx::NodeProto mean = loss("NegativeLogLikelihoodLoss", "mean");
  add_attr(mean, "ignore_index", int64_t{-100});
  EXPECT_EQ(run_kernel(mean, kOpset, {&x, &t})[0].value.data,
            (std::vector<float>{3.5f}));
}

TEST(OnnxKernelsLoss, SoftmaxCrossEntropyIsTheLossOfTheLogSoftmax) {
  // Equal scores: every log-probability is -log(3).
  const HeldValue s = value({2, 3}, {1, 1, 1, 5, 5, 5});
  const HeldValue l = value({2}, {0, 2}, kInt64);
  auto out =
      run_kernel(loss("SoftmaxCrossEntropyLoss", "none"), kOpset, {&s, &l});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].value.shape, (Shape{2, 3}));
  for (float v : out[1].value.data)
    EXPECT_NEAR(v, -std::log(3.0f), 1e-6);
  for (float v : out[0].value.data)
    EXPECT_NEAR(v, std::log(3.0f), 1e-6);
  // Scores far from zero do not overflow the exponentials.
  const HeldValue big = value({1, 2}, {1000, 0});
  const HeldValue first = value({1}, {1}, kInt64);
  EXPECT_NEAR(run_kernel(loss("SoftmaxCrossEntropyLoss", "mean"), kOpset,
                         {&big, &first})[0]
                  .value.data[0],
              1000.0f, 1e-3);
}

TEST(OnnxKernelsLoss, RefusesWhatItCannotCompute) {
  const HeldValue x = value({2, 3}, {-1, -2, -3, -4, -5, -6});
  const HeldValue t = value({2}, {3, 0}, kInt64);
  const auto nll = loss("NegativeLogLikelihoodLoss", "mean");
  EXPECT_EQ(error_of([&] {
              run_kernel(nll, kOpset, {&x, &t});
            }),
            "target holds 3, not a class of 0 to 2");
  const HeldValue short_t = value({3}, {0, 0, 0}, kInt64);
  EXPECT_EQ(error_of([&] {
              run_kernel(nll, kOpset, {&x, &short_t});
            }),
            "target of [3] does not match input of [2,3] (it needs [2])");
  const HeldValue t_ok = value({2}, {0, 1}, kInt64);
  const HeldValue w = value({2}, {1, 1});
  EXPECT_EQ(error_of([&] {
              run_kernel(nll, kOpset, {&x, &t_ok, &w});
            }),
            "weight of [2] is not [3], one per class");
  EXPECT_EQ(error_of([&] {
              run_kernel(loss("NegativeLogLikelihoodLoss", "max"), kOpset,
                         {&x, &t_ok});
            }),
            "reduction 'max' is none of 'none', 'sum' and 'mean'");
  const HeldValue flat = value({3}, {1, 2, 3});
  EXPECT_EQ(error_of([&] {
              run_kernel(loss("SoftmaxCrossEntropyLoss", "sum"), kOpset,
                         {&flat, &t_ok});
            }),
            "scores of [3] has no class axis: it needs rank 2 or more");
}

} // namespace
} // namespace quarry
