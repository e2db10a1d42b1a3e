//===- onnx_kernels_index_test.cc - Index and mask kernels ----------------===//
//
// ArgMax, ArgMin, GatherND, Compress, OneHot, Unique, CumSum, Trilu,
// EyeLike, ReverseSequence, IsInf, IsNaN and the window functions beyond
// ONNX's backend tests (which onnx_kernels_test.cc runs): NaN and ties,
// how an operator changed between opsets, the element types of their
// outputs, and the operands they refuse.
//
//===----------------------------------------------------------------------===//
#include "../src/onnx_attrs.h"
#include "../src/onnx_kernels.h"
#include "kernel_operands.h"

#include "quarry/testing/error_of.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace quarry {
namespace {

using namespace quarry::testing;
using onnx_io::add_attr;
using onnx_io::run_kernel;

constexpr int32_t kFloat = onnx::TensorProto::FLOAT;
constexpr int32_t kInt64 = onnx::TensorProto::INT64;
constexpr int32_t kInt32 = onnx::TensorProto::INT32;
constexpr int32_t kBool = onnx::TensorProto::BOOL;
constexpr int64_t kOpset = 22;
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

/// Data compared with NaN equal to NaN.
void expect_data(const HeldValue &got, const std::vector<float> &want) {
  ASSERT_EQ(got.value.data.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    if (std::isnan(want[i]))
      EXPECT_TRUE(std::isnan(got.value.data[i])) << "at " << i;
    else
      EXPECT_EQ(got.value.data[i], want[i]) << "at " << i;
}

//===----------------------------------------------------------------------===//
// ArgMax, ArgMin
//===----------------------------------------------------------------------===//

TEST(OnnxKernelsIndex, ArgMaxAndArgMinTakeNaNAndBreakTies) {
  HeldValue x = value({2, 4}, {1, 5, 5, 0, 2, kNaN, 3, kNaN});
  onnx::NodeProto max = node("ArgMax");
  add_attr(max, "axis", int64_t{1});
  add_attr(max, "keepdims", int64_t{0});
  auto out = run_kernel(max, kOpset, {&x});
  EXPECT_EQ(out[0].elem, kInt64);
  EXPECT_EQ(out[0].value.shape, (Shape{2}));
  EXPECT_EQ(out[0].value.data, (std::vector<float>{1, 1}));
  add_attr(max, "select_last_index", int64_t{1});
  EXPECT_EQ(run_kernel(max, kOpset, {&x})[0].value.data,
            (std::vector<float>{2, 3}));

  // NaN is the smallest element too, as numpy's argmin takes it.
  onnx::NodeProto min = node("ArgMin");
  add_attr(min, "axis", int64_t{-1});
  out = run_kernel(min, kOpset, {&x});
  EXPECT_EQ(out[0].value.shape, (Shape{2, 1}));
  EXPECT_EQ(out[0].value.data, (std::vector<float>{3, 1}));
}

TEST(OnnxKernelsIndex, ArgMaxFollowsItsOpset) {
  HeldValue x = value({3}, {1, 3, 2});
  onnx::NodeProto back = node("ArgMax");
  add_attr(back, "axis", int64_t{-1});
  add_attr(back, "keepdims", int64_t{0});
  auto out = run_kernel(back, 11, {&x});
  EXPECT_EQ(out[0].value.shape, Shape{});
  EXPECT_EQ(out[0].value.data, (std::vector<float>{1}));
  EXPECT_EQ(error_of([&] { run_kernel(back, 10, {&x}); }),
            "axis -1 is out of range for data of [3] (negative axes need a "
            "later opset)");
  onnx::NodeProto last = node("ArgMax");
  add_attr(last, "select_last_index", int64_t{1});
  EXPECT_EQ(error_of([&] { run_kernel(last, 11, {&x}); }),
            "attribute 'select_last_index' needs opset 12, not 11");
}

TEST(OnnxKernelsIndex, ArgMinRejectsAScalarAndAnEmptyAxis) {
  HeldValue scalar = value({}, {1});
  EXPECT_EQ(error_of([&] { run_kernel(node("ArgMin"), kOpset, {&scalar}); }),
            "axis 0 is out of range for data of []");
  HeldValue empty = value({0, 2}, {});
  EXPECT_EQ(error_of([&] { run_kernel(node("ArgMin"), kOpset, {&empty}); }),
            "axis 0 of data [0,2] is empty: it has no smallest element");
}

//===----------------------------------------------------------------------===//
// GatherND
//===----------------------------------------------------------------------===//

TEST(OnnxKernelsIndex, GatherNDTakesNegativeIndicesAndBatches) {
  HeldValue data = value({2, 3}, {0, 1, 2, 3, 4, 5}, kInt32);
  HeldValue rows = value({2, 1}, {-1, 0}, kInt64);
  auto out = run_kernel(node("GatherND"), kOpset, {&data, &rows});
  EXPECT_EQ(out[0].elem, kInt32);
  EXPECT_EQ(out[0].value.shape, (Shape{2, 3}));
  EXPECT_EQ(out[0].value.data, (std::vector<float>{3, 4, 5, 0, 1, 2}));

  // Per batch (axis 0): element -1 of row 0, element 1 of row 1.
  onnx::NodeProto batched = node("GatherND");
  add_attr(batched, "batch_dims", int64_t{1});
  HeldValue each = value({2, 1}, {-1, 1}, kInt64);
  out = run_kernel(batched, kOpset, {&data, &each});
  EXPECT_EQ(out[0].value.shape, (Shape{2}));
  EXPECT_EQ(out[0].value.data, (std::vector<float>{2, 4}));
}

TEST(OnnxKernelsIndex, GatherNDRejectsMalformedIndices) {
  HeldValue data = value({2, 3}, {0, 1, 2, 3, 4, 5});
  HeldValue far = value({1, 2}, {1, 3}, kInt64);
  EXPECT_EQ(error_of([&] {
              run_kernel(node("GatherND"), kOpset, {&data, &far});
            }),
            "indices holds 3, outside [-3, 2] for axis 1 of data [2,3]");
  HeldValue deep = value({1, 3}, {0, 0, 0}, kInt64);
  EXPECT_EQ(error_of([&] {
              run_kernel(node("GatherND"), kOpset, {&data, &deep});
            }),
            "the last dimension of indices [1,3] must be between 1 and 2 (the "
            "rank of data [2,3] less batch_dims), not 3");
  onnx::NodeProto batched = node("GatherND");
  add_attr(batched, "batch_dims", int64_t{1});
  HeldValue three = value({3, 1}, {0, 0, 0}, kInt64);
  EXPECT_EQ(error_of([&] {
              run_kernel(batched, kOpset, {&data, &three});
            }),
            "data [2,3] and indices [3,1] differ in their first 1 (batch) "
            "dimensions");
  onnx::NodeProto too_many = node("GatherND");
  add_attr(too_many, "batch_dims", int64_t{2});
  EXPECT_EQ(error_of([&] {
              run_kernel(too_many, kOpset, {&data, &three});
            }),
            "batch_dims must be in [0, 2) for data [2,3] and indices [3,1], "
            "not 2");
}

TEST(OnnxKernelsIndex, GatherNDRefusesAHugeOutput) {
  // 2^16 indices each taking a row of 2^16 elements: 2^32 in all.
  HeldValue data = value({1, 1 << 16}, std::vector<float>(1 << 16, 0.0f));
  HeldValue rows =
      value({1 << 16, 1}, std::vector<float>(1 << 16, 0.0f), kInt64);
  EXPECT_EQ(error_of([&] {
              run_kernel(node("GatherND"), kOpset, {&data, &rows});
            }),
            "the output would be [65536,65536], more than 2^31 elements");
}

//===----------------------------------------------------------------------===//
// Compress
//===----------------------------------------------------------------------===//

TEST(OnnxKernelsIndex, CompressFlattensWithoutAnAxis) {
  HeldValue x = value({2, 2}, {1, 2, 3, 4}, kInt64);
  HeldValue cond = value({3}, {0, 1, 1}, kBool);
  auto out = run_kernel(node("Compress"), kOpset, {&x, &cond});
  EXPECT_EQ(out[0].elem, kInt64);
  EXPECT_EQ(out[0].value.shape, (Shape{2}));
  EXPECT_EQ(out[0].value.data, (std::vector<float>{2, 3}));

  onnx::NodeProto rows = node("Compress");
  add_attr(rows, "axis", int64_t{0});
  HeldValue second = value({2}, {0, 1}, kBool);
  out = run_kernel(rows, kOpset, {&x, &second});
  EXPECT_EQ(out[0].value.shape, (Shape{1, 2}));
  EXPECT_EQ(out[0].value.data, (std::vector<float>{3, 4}));
}

TEST(OnnxKernelsIndex, CompressRejectsALongOrMisshapenCondition) {
  HeldValue x = value({2, 2}, {1, 2, 3, 4});
  onnx::NodeProto rows = node("Compress");
  add_attr(rows, "axis", int64_t{1});
  HeldValue three = value({3}, {1, 1, 1}, kBool);
  EXPECT_EQ(error_of([&] {
              run_kernel(rows, kOpset, {&x, &three});
            }),
            "condition holds 3 values, more than the 2 of axis 1 of input "
            "[2,2]");
  HeldValue square = value({2, 2}, {1, 1, 1, 1}, kBool);
  EXPECT_EQ(error_of([&] {
              run_kernel(node("Compress"), kOpset, {&x, &square});
            }),
            "condition must be 1-D, not [2,2]");
}

//===----------------------------------------------------------------------===//
// OneHot
//===----------------------------------------------------------------------===//

TEST(OnnxKernelsIndex, OneHotCountsNegativeIndicesFromOpset11) {
  HeldValue indices = value({3}, {-1, 1.7f, 5}, kFloat);
  HeldValue depth = value({}, {3}, kInt64);
  HeldValue values = value({2}, {-2, 7}, kInt32);
  auto at11 = run_kernel(node("OneHot"), 11, {&indices, &depth, &values});
  EXPECT_EQ(at11[0].elem, kInt32);
  EXPECT_EQ(at11[0].value.shape, (Shape{3, 3}));
  // -1 is the last class; 1.7 truncates to 1; 5 is out of range.
  EXPECT_EQ(at11[0].value.data,
            (std::vector<float>{-2, -2, 7, -2, 7, -2, -2, -2, -2}));
  auto at9 = run_kernel(node("OneHot"), 9, {&indices, &depth, &values});
  EXPECT_EQ(at9[0].value.data,
            (std::vector<float>{-2, -2, -2, -2, 7, -2, -2, -2, -2}));
}

TEST(OnnxKernelsIndex, OneHotRejectsBadDepthValuesAndSize) {
  HeldValue indices = value({2}, {0, 1}, kInt64);
  HeldValue values = value({2}, {0, 1});
  HeldValue zero = value({}, {0});
  EXPECT_EQ(error_of([&] {
              run_kernel(node("OneHot"), kOpset, {&indices, &zero, &values});
            }),
            "depth must be positive, not 0");
  HeldValue two = value({2}, {2, 2});
  EXPECT_EQ(error_of([&] {
              run_kernel(node("OneHot"), kOpset, {&indices, &two, &values});
            }),
            "depth must be a scalar, not of shape [2]");
  HeldValue depth = value({}, {4});
  HeldValue three = value({3}, {0, 1, 2});
  EXPECT_EQ(error_of([&] {
              run_kernel(node("OneHot"), kOpset, {&indices, &depth, &three});
            }),
            "values must be [off_value, on_value], of shape [2], not [3]");
  onnx::NodeProto far = node("OneHot");
  add_attr(far, "axis", int64_t{-3});
  EXPECT_EQ(error_of([&] {
              run_kernel(far, kOpset, {&indices, &depth, &values});
            }),
            "axis -3 is out of range for indices of [2] and the axis added");
  HeldValue huge = value({}, {2e9f});
  EXPECT_EQ(error_of([&] {
              run_kernel(node("OneHot"), kOpset, {&indices, &huge, &values});
            }),
            "the output would be [2,2000000000], more than 2^31 elements");
}

//===----------------------------------------------------------------------===//
// Unique
//===----------------------------------------------------------------------===//

TEST(OnnxKernelsIndex, UniqueSortsNaNLastAsOneValue) {
  HeldValue x = value({6}, {2, kNaN, -0.0f, 0, kNaN, 2});
  auto out = run_kernel(node("Unique"), kOpset, {&x});
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].elem, kFloat);
  for (int k = 1; k < 4; ++k)
    EXPECT_EQ(out[k].elem, kInt64);
  expect_data(out[0], {-0.0f, 2, kNaN});
  EXPECT_TRUE(std::signbit(out[0].value.data[0]));
  EXPECT_EQ(out[1].value.data, (std::vector<float>{2, 0, 1}));
  EXPECT_EQ(out[2].value.data, (std::vector<float>{1, 2, 0, 0, 2, 1}));
  EXPECT_EQ(out[3].value.data, (std::vector<float>{2, 2, 2}));
}

TEST(OnnxKernelsIndex, UniqueUnsortedAlongAnAxisKeepsFirstOccurrences) {
  // Columns 0 and 2 are equal; column 1 sorts first but occurs second.
  HeldValue x = value({2, 3}, {5, 1, 5, 6, 0, 6}, kInt32);
  onnx::NodeProto n = node("Unique");
  add_attr(n, "axis", int64_t{1});
  add_attr(n, "sorted", int64_t{0});
  auto out = run_kernel(n, kOpset, {&x});
  EXPECT_EQ(out[0].elem, kInt32);
  EXPECT_EQ(out[0].value.shape, (Shape{2, 2}));
  EXPECT_EQ(out[0].value.data, (std::vector<float>{5, 1, 6, 0}));
  EXPECT_EQ(out[1].value.data, (std::vector<float>{0, 1}));
  EXPECT_EQ(out[2].value.data, (std::vector<float>{0, 1, 0}));
  EXPECT_EQ(out[3].value.data, (std::vector<float>{2, 1}));

  onnx::NodeProto in_order = node("Unique");
  add_attr(in_order, "axis", int64_t{1});
  out = run_kernel(in_order, kOpset, {&x});
  EXPECT_EQ(out[0].value.data, (std::vector<float>{1, 5, 0, 6}));
  EXPECT_EQ(out[1].value.data, (std::vector<float>{1, 0}));
  EXPECT_EQ(out[2].value.data, (std::vector<float>{1, 0, 1}));

  HeldValue scalar = value({}, {1});
  EXPECT_EQ(error_of([&] { run_kernel(n, kOpset, {&scalar}); }),
            "axis 1 is out of range for X of []");
}

//===----------------------------------------------------------------------===//
// CumSum, Trilu, EyeLike, IsInf, IsNaN
//===----------------------------------------------------------------------===//

TEST(OnnxKernelsIndex, CumSumRoundsEachSumToItsType) {
  // In float16 2048 + 1 rounds back to 2048.
  HeldValue x = value({3}, {2048, 1, 1}, onnx::TensorProto::FLOAT16);
  HeldValue axis = value({1}, {0}, kInt32);
  auto out = run_kernel(node("CumSum"), kOpset, {&x, &axis});
  EXPECT_EQ(out[0].elem, onnx::TensorProto::FLOAT16);
  EXPECT_EQ(out[0].value.data, (std::vector<float>{2048, 2048, 2048}));
  x.elem = kFloat;
  out = run_kernel(node("CumSum"), kOpset, {&x, &axis});
  EXPECT_EQ(out[0].value.data, (std::vector<float>{2048, 2049, 2050}));
}

TEST(OnnxKernelsIndex, CumSumRejectsABadAxis) {
  HeldValue x = value({2, 2}, {1, 2, 3, 4});
  HeldValue two = value({}, {2}, kInt64);
  EXPECT_EQ(error_of([&] {
              run_kernel(node("CumSum"), kOpset, {&x, &two});
            }),
            "axis 2 is out of range for x of [2,2]");
  HeldValue pair = value({2}, {0, 1}, kInt64);
  EXPECT_EQ(error_of([&] {
              run_kernel(node("CumSum"), kOpset, {&x, &pair});
            }),
            "axis must hold one value, not 2 (shape [2])");
  EXPECT_EQ(error_of([&] { run_kernel(node("CumSum"), kOpset, {&x}); }),
            "input axis is missing");
}

TEST(OnnxKernelsIndex, TriluMasksEachMatrixOfABatch) {
  HeldValue x = value({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}, kInt64);
  auto upper = run_kernel(node("Trilu"), kOpset, {&x});
  EXPECT_EQ(upper[0].elem, kInt64);
  EXPECT_EQ(upper[0].value.data, (std::vector<float>{1, 2, 0, 4, 5, 6, 0, 8}));
  onnx::NodeProto lower = node("Trilu");
  add_attr(lower, "upper", int64_t{0});
  HeldValue k = value({}, {-1}, kInt64);
  EXPECT_EQ(run_kernel(lower, kOpset, {&x, &k})[0].value.data,
            (std::vector<float>{0, 0, 3, 0, 0, 0, 7, 0}));
  HeldValue far = value({}, {9e18f}, kInt64);
  EXPECT_EQ(run_kernel(lower, kOpset, {&x, &far})[0].value, x.value);
  HeldValue row = value({3}, {1, 2, 3});
  EXPECT_EQ(error_of([&] { run_kernel(node("Trilu"), kOpset, {&row}); }),
            "input must have a rank of at least 2, not [3]");
}

TEST(OnnxKernelsIndex, EyeLikeTakesItsTypeFromDtypeOrItsInput) {
  HeldValue x = value({2, 3}, std::vector<float>(6, 5.0f), kInt32);
  auto out = run_kernel(node("EyeLike"), kOpset, {&x});
  EXPECT_EQ(out[0].elem, kInt32);
  EXPECT_EQ(out[0].value.data, (std::vector<float>{1, 0, 0, 0, 1, 0}));
  onnx::NodeProto below = node("EyeLike");
  add_attr(below, "k", int64_t{-1});
  add_attr(below, "dtype", int64_t{kBool});
  out = run_kernel(below, kOpset, {&x});
  EXPECT_EQ(out[0].elem, kBool);
  EXPECT_EQ(out[0].value.data, (std::vector<float>{0, 0, 0, 1, 0, 0}));
  onnx::NodeProto beyond = node("EyeLike");
  add_attr(beyond, "k", std::numeric_limits<int64_t>::max());
  EXPECT_EQ(run_kernel(beyond, kOpset, {&x})[0].value.data,
            std::vector<float>(6, 0.0f));

  onnx::NodeProto text = node("EyeLike");
  add_attr(text, "dtype", int64_t{onnx::TensorProto::STRING});
  EXPECT_EQ(error_of([&] { run_kernel(text, kOpset, {&x}); }),
            "dtype 8 is not an element type quarry holds");
  HeldValue cube = value({1, 1, 1}, {0});
  EXPECT_EQ(error_of([&] { run_kernel(node("EyeLike"), kOpset, {&cube}); }),
            "input must be 2-D, not [1,1,1]");
}

TEST(OnnxKernelsIndex, IsInfAndIsNaNGiveBools) {
  HeldValue x = value({4}, {kInf, -kInf, kNaN, 1});
  onnx::NodeProto negative = node("IsInf");
  add_attr(negative, "detect_positive", int64_t{0});
  auto out = run_kernel(negative, kOpset, {&x});
  EXPECT_EQ(out[0].elem, kBool);
  EXPECT_EQ(out[0].value.data, (std::vector<float>{0, 1, 0, 0}));
  EXPECT_EQ(run_kernel(node("IsInf"), kOpset, {&x})[0].value.data,
            (std::vector<float>{1, 1, 0, 0}));
  out = run_kernel(node("IsNaN"), kOpset, {&x});
  EXPECT_EQ(out[0].elem, kBool);
  EXPECT_EQ(out[0].value.shape, (Shape{4}));
  EXPECT_EQ(out[0].value.data, (std::vector<float>{0, 0, 1, 0}));
  EXPECT_EQ(error_of([&] {
              run_kernel(node("IsNaN"), kOpset, {&x, &x});
            }),
            "takes at most 1 inputs, not 2");
}

TEST(OnnxKernelsIndex, EmptyOperandsGiveEmptyOutputs) {
  // A dimension of 0 beside long ones: nothing to loop over.
  HeldValue x = value({1 << 30, 0, 1 << 30}, {});
  onnx::NodeProto max = node("ArgMax");
  add_attr(max, "axis", int64_t{2});
  EXPECT_EQ(run_kernel(max, kOpset, {&x})[0].value.shape,
            (Shape{1 << 30, 0, 1}));
  HeldValue axis = value({}, {0}, kInt64);
  EXPECT_EQ(run_kernel(node("CumSum"), kOpset, {&x, &axis})[0].value.shape,
            x.value.shape);
  onnx::NodeProto rows = node("Compress");
  add_attr(rows, "axis", int64_t{2});
  HeldValue first = value({1}, {1}, kBool);
  EXPECT_EQ(run_kernel(rows, kOpset, {&x, &first})[0].value.shape,
            (Shape{1 << 30, 0, 1}));
  onnx::NodeProto by_axis = node("Unique");
  add_attr(by_axis, "axis", int64_t{1});
  auto out = run_kernel(by_axis, kOpset, {&x});
  EXPECT_EQ(out[0].value.shape, (Shape{1 << 30, 0, 1 << 30}));
  EXPECT_EQ(out[2].value.shape, (Shape{0}));
  HeldValue data = value({2, 3}, {0, 1, 2, 3, 4, 5});
  HeldValue none = value({0, 1}, {}, kInt64);
  EXPECT_EQ(run_kernel(node("GatherND"), kOpset, {&data, &none})[0].value.shape,
            (Shape{0, 3}));
  HeldValue no_indices = value({0}, {}, kInt64);
  HeldValue depth = value({}, {5}, kInt64);
  HeldValue values = value({2}, {0, 1});
  EXPECT_EQ(
      run_kernel(node("OneHot"), kOpset, {&no_indices, &depth, &values})[0]
          .value.shape,
      (Shape{0, 5}));
}

//===----------------------------------------------------------------------===//
// ReverseSequence
//===----------------------------------------------------------------------===//

TEST(OnnxKernelsIndex, ReverseSequenceReversesEachEntrysOwnLength) {
  // [time 3, batch 2, 1]: entry 0 reverses its first 3 steps, entry 1 its
  // first 2; batch-major the same with the axes swapped.
  const HeldValue x = value({3, 2, 1}, {0, 10, 1, 11, 2, 12});
  const HeldValue lens = value({2}, {3, 2}, kInt64);
  auto out = run_kernel(node("ReverseSequence"), kOpset, {&x, &lens});
  EXPECT_EQ(out[0].value.data, (std::vector<float>{2, 11, 1, 10, 0, 12}));
  onnx::NodeProto major = node("ReverseSequence");
  add_attr(major, "batch_axis", int64_t{0});
  add_attr(major, "time_axis", int64_t{1});
  const HeldValue xb = value({2, 3}, {0, 1, 2, 10, 11, 12});
  EXPECT_EQ(run_kernel(major, kOpset, {&xb, &lens})[0].value.data,
            (std::vector<float>{2, 1, 0, 11, 10, 12}));
  const HeldValue long_lens = value({2}, {4, 1}, kInt64);
  EXPECT_EQ(error_of([&] {
              run_kernel(node("ReverseSequence"), kOpset, {&x, &long_lens});
            }),
            "sequence_lens holds 4, not from 0 to the 3 steps");
}

//===----------------------------------------------------------------------===//
// HannWindow, HammingWindow, BlackmanWindow
//===----------------------------------------------------------------------===//

TEST(OnnxKernelsIndex, WindowsFollowTheirFormulas) {
  const HeldValue four = value({}, {4}, kInt64);
  auto hann = run_kernel(node("HannWindow"), kOpset, {&four});
  EXPECT_EQ(hann[0].elem, kFloat);
  ASSERT_EQ(hann[0].value.shape, (Shape{4}));
  const std::vector<float> want{0, 0.5f, 1, 0.5f};
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(hann[0].value.data[i], want[i], 1e-7) << i;
  // Symmetric: the last sample mirrors the first.
  onnx::NodeProto symmetric = node("BlackmanWindow");
  add_attr(symmetric, "periodic", int64_t{0});
  const auto b = run_kernel(symmetric, kOpset, {&four})[0].value.data;
  EXPECT_NEAR(b[0], 0.0f, 1e-7);
  EXPECT_NEAR(b[3], b[0], 1e-7);
  EXPECT_NEAR(
      b[1], 0.42 - 0.5 * std::cos(2 * M_PI / 3) + 0.08 * std::cos(4 * M_PI / 3),
      1e-7);
  // Hamming never reaches zero: 25/46 - 21/46 at the ends.
  EXPECT_NEAR(
      run_kernel(node("HammingWindow"), kOpset, {&four})[0].value.data[0],
      4.0 / 46.0, 1e-7);
  onnx::NodeProto f16 = node("HannWindow");
  add_attr(f16, "output_datatype", int64_t{onnx::TensorProto::FLOAT16});
  EXPECT_EQ(run_kernel(f16, kOpset, {&four})[0].elem,
            onnx::TensorProto::FLOAT16);

  const HeldValue negative = value({}, {-1}, kInt64);
  EXPECT_EQ(
      error_of([&] { run_kernel(node("HannWindow"), kOpset, {&negative}); }),
      "size -1 is negative");
  onnx::NodeProto strings = node("HannWindow");
  add_attr(strings, "output_datatype", int64_t{onnx::TensorProto::STRING});
  EXPECT_EQ(error_of([&] { run_kernel(strings, kOpset, {&four}); }),
            "output_datatype 8 is not an element type quarry holds");
}

} // namespace
} // namespace quarry
