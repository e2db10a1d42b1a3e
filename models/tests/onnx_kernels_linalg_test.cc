//===- onnx_kernels_linalg_test.cc - Determinants
//--------------------------===//
//
// Det beyond ONNX's backend tests: a pivot that must swap rows, a singular
// matrix, a batch of them, and what it refuses.
//
//===----------------------------------------------------------------------===//
#include "../src/onnx_kernels.h"
#include "kernel_operands.h"

#include "quarry/testing/error_of.h"

#include <gtest/gtest.h>

namespace quarry {
namespace {

using namespace quarry::testing;
using onnx_io::run_kernel;

TEST(OnnxKernelsLinalg, DeterminantsOfABatch) {
  // [[0,1],[1,0]] needs a row swap (-1); [[1,2],[2,4]] is singular;
  // [[2,0],[0,3]] is 6.
  const HeldValue x = value({3, 2, 2}, {0, 1, 1, 0, 1, 2, 2, 4, 2, 0, 0, 3});
  const auto out = run_kernel(node("Det"), 13, {&x});
  EXPECT_EQ(out[0].value.shape, (Shape{3}));
  EXPECT_EQ(out[0].value.data, (std::vector<float>{-1, 0, 6}));
  const HeldValue three = value({3, 3}, {2, -3, 1, 2, 0, -1, 1, 4, 5});
  EXPECT_NEAR(run_kernel(node("Det"), 13, {&three})[0].value.data[0], 49, 1e-4);
}

TEST(OnnxKernelsLinalg, DetRefusesMatricesThatAreNotSquare) {
  const HeldValue x = value({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(error_of([&] { run_kernel(node("Det"), 13, {&x}); }),
            "X of [2,3] does not end in square matrices [..., M, M]");
}

} // namespace
} // namespace quarry
