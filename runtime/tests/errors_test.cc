//===- errors_test.cc - Bad input gives one clear error -------------------===//
#include "quarry/core/text.h"
#include "quarry/runtime/backends.h"
#include "quarry/runtime/plan.h"
#include "quarry/runtime/run_inputs.h"
#include "quarry/testing/error_of.h"

#include <gtest/gtest.h>

namespace quarry::runtime {
namespace {

using quarry::testing::error_of;

const char *kConv = "input x: [1,2,5,5]\nweight w: [3,2,3,3]\n"
                    "y = conv2d(x, w)\noutput y\n";

class BackendErrors : public ::testing::TestWithParam<std::string> {};

TEST_P(BackendErrors, MismatchedInputShape) {
  const Graph g = parse_graph(kConv);
  auto b = make_backend(GetParam());
  auto values = random_run_bindings(g, 1);
  auto e = b->prepare(g, values);
  values.insert_or_assign("x", Tensor<float>(Shape{1, 2, 5, 4}, 0.0f));
  EXPECT_EQ(error_of([&] { e->set_inputs(values); }),
            "backend " + GetParam() +
                ": input 'x' must be [1,2,5,5], got [1,2,5,4]");
}

TEST_P(BackendErrors, MissingInput) {
  const Graph g = parse_graph(kConv);
  auto b = make_backend(GetParam());
  auto values = random_run_bindings(g, 1);
  auto e = b->prepare(g, values);
  values.erase("x");
  EXPECT_EQ(error_of([&] { e->set_inputs(values); }),
            "backend " + GetParam() + ": no value for input 'x'");
}

TEST_P(BackendErrors, AGraphPastMemoryIsRefusedBeforeItsBuffersAre) {
  // Values of 2^40 floats each: sized from the plan, nothing allocated.
  if (GetParam() == "cuda")
    GTEST_SKIP() << "a GPU's buffers are in its own memory";
  const Graph g = parse_graph("input x: [1048576,1048576]\n"
                              "y = relu(x)\noutput y\n");
  auto b = make_backend(GetParam());
  const std::string e = error_of([&] { b->prepare(g, {}); });
  EXPECT_EQ(e.rfind("backend " + GetParam() +
                        ": running the graph (8.8 TB for its values, 0 B "
                        "of weights) needs about 8.8 TB, more than this "
                        "process may allocate: ",
                    0),
            0u)
      << e;
}

TEST_P(BackendErrors, MissingWeight) {
  const Graph g = parse_graph(kConv);
  auto b = make_backend(GetParam());
  auto values = random_run_bindings(g, 1);
  values.erase("w");
  EXPECT_EQ(error_of([&] { b->prepare(g, values); }),
            "backend " + GetParam() + ": no value for weight 'w'");
}

TEST_P(BackendErrors, WeightOfTheWrongShape) {
  const Graph g = parse_graph(kConv);
  auto b = make_backend(GetParam());
  auto values = random_run_bindings(g, 1);
  values.insert_or_assign("w", Tensor<float>(Shape{3, 2, 1, 1}, 0.0f));
  EXPECT_EQ(error_of([&] { b->prepare(g, values); }),
            "backend " + GetParam() +
                ": weight 'w' is declared [3,2,3,3] but its value is "
                "[3,2,1,1]");
}

TEST_P(BackendErrors, VariableWithoutShape) {
  const Graph g = parse_graph("input x\ny = relu(x)\noutput y\n");
  auto b = make_backend(GetParam());
  EXPECT_EQ(error_of([&] { b->prepare(g, {}); }),
            "backend " + GetParam() + ": variable 'x' has no shape");
}

INSTANTIATE_TEST_SUITE_P(Host, BackendErrors,
                         ::testing::Values("reference", "cpu"));

TEST(BackendErrors, UnsupportedOperator) {
  // enlarge of weights is folded at prepare time; of an input it runs every
  // time, and a backend without a kernel for it refuses the graph.
  const Graph g = parse_graph("input w: [2,2,1,1]\ny = enlarge(w)\noutput y\n");
  EXPECT_EQ(
      error_of([&] { make_plan(g, {}, "gpu", [](OpKind) { return false; }); }),
      "backend gpu: node 'y' (enlarge) is not supported on this backend");
  // The cpu backend runs what it has no kernel for through the reference
  // semantics.
  EXPECT_NO_THROW(make_backend("cpu")->prepare(g, {}));
}

TEST(BackendErrors, UnknownBackend) {
  EXPECT_EQ(error_of([] { make_backend("tpu"); }),
            "unknown backend 'tpu' (reference, cpu or cuda)");
}

TEST(BackendErrors, BatchThatAReshapeCannotTake) {
  const Graph g =
      parse_graph("input x: [2,6]\ny = reshape[shape=3,4](x)\noutput y\n");
  EXPECT_EQ(error_of([&] { with_batch(g, 3); }),
            "reshape: cannot reshape [3,6] (18 elements) to [3,4]");
  EXPECT_EQ(with_batch(g, 2).type(g.outputs()[0])->shape, (Shape{3, 4}));
}

} // namespace
} // namespace quarry::runtime
