//===- staged_executable_test.cc - Running models that keep ONNX nodes ----===//
//
// Models ending as detection models do (NonZero, TopK, NonMaxSuppression
// and what reads them), run whole: the static stages on a backend, the
// kept nodes between them, the untyped tail imported again once its
// shapes are known. Each is checked against the values worked out here.
//
//===----------------------------------------------------------------------===//
#include "onnx_builder.h"

#include "quarry/models/onnx.h"
#include "quarry/runtime/backends.h"
#include "quarry/staged/staged_executable.h"
#include "quarry/staged/staged_timer.h"
#include "quarry/testing/error_of.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

namespace quarry::staged {
namespace {

using namespace quarry::testing;

/// Runs `m` on `backend` with `inputs` (by quarry's variable names): its
/// outputs by ONNX name. Each stage is checked against the reference on
/// the inputs it had.
HeldValues run(const Model &m, const std::string &backend,
               const Bindings<float> &inputs) {
  auto b = runtime::make_backend(backend);
  auto reference = runtime::make_backend("reference");
  StagedExecutable exe(m, m.weights, *b, "test.onnx");
  exe.check_against(reference.get());
  exe.set_inputs(inputs);
  exe.execute();
  EXPECT_LE(exe.checked_error(), 1e-6);
  return exe.results();
}

class Staged : public ::testing::TestWithParam<std::string> {};

INSTANTIATE_TEST_SUITE_P(Backends, Staged,
                         ::testing::Values("reference", "cpu"));

// x -> relu -> mask > 0.5 -> NonZero -> the columns picked -> times 2: the
// output's length is the count of values over 0.5, known only at run time.
// The picked values come from a 32-long tensor, an input of the tail's
// static stage (not a constant), so that stage runs on the backend.
TEST_P(Staged, NonZeroAndWhatReadsItRunOnceTheCountIsKnown) {
  OnnxModel b;
  b.input("x", {1, 32});
  b.floats("half", {}, {0.5f});
  b.floats("two", {}, {2.0f});
  b.ints("one", {}, {1});
  b.node("Relu", {"x"}, {"r"});
  b.node("Greater", {"r", "half"}, {"mask"});
  b.node("NonZero", {"mask"}, {"where"});
  set_int(b.node("Gather", {"where", "one"}, {"cols"}), "axis", 0);
  set_int(b.node("Gather", {"r", "cols"}, {"picked"}), "axis", 1);
  b.node("Mul", {"picked", "two"}, {"out"});
  b.output("out");
  const Model m = import_onnx_bytes(b.bytes(), "test.onnx");
  ASSERT_TRUE(needs_stages(m));

  for (int trial = 0; trial < 2; ++trial) {
    Tensor<float> x(Shape{1, 32}, 0.0f);
    std::vector<float> want;
    for (int i = 0; i < 32; ++i) {
      x[i] = std::sin(static_cast<float>(i * (trial + 3)));
      if (x[i] > 0.5f)
        want.push_back(2 * x[i]);
    }
    const HeldValues out = run(m, GetParam(), {{"x", x}});
    const HeldValue &got = out.at("out");
    EXPECT_EQ(got.value.shape, (Shape{1, static_cast<int64_t>(want.size())}));
    EXPECT_EQ(got.value.data, want);
  }
}

// TopK with a constant K is typed by ONNX: an opaque operator inside the
// graph, whose values the next stage doubles.
TEST_P(Staged, AnOpaqueOperatorRunsBetweenTwoStages) {
  OnnxModel b;
  b.input("x", {1, 6});
  b.ints("k", {1}, {3});
  b.floats("two", {}, {2.0f});
  b.node("Relu", {"x"}, {"r"});
  b.node("TopK", {"r", "k"}, {"values", "indices"});
  b.node("Mul", {"values", "two"}, {"out"});
  b.output("out");
  b.output("indices");
  const Model m = import_onnx_bytes(b.bytes(), "test.onnx");
  ASSERT_TRUE(needs_stages(m));
  EXPECT_EQ(split_at_opaque(m.graph).size(), 2u);
  Tensor<float> x(Shape{1, 6}, {0.5f, -1.0f, 3.0f, 0.25f, 2.0f, 1.0f});
  const HeldValues out = run(m, GetParam(), {{"x", x}});
  EXPECT_EQ(out.at("out").value.data, (std::vector<float>{6, 4, 2}));
  EXPECT_EQ(out.at("indices").value.data, (std::vector<float>{2, 4, 5}));
  EXPECT_EQ(out.at("indices").elem, onnx::TensorProto::INT64);
}

// Values cross stages by moving on their last read and copying before it:
// TopK's values are read by the next stage and are an output; the tail's
// input r (more values than a tail takes as constants) is an output too;
// and runs of the same executable on the same inputs, and on new ones,
// find every input and weight they had.
TEST_P(Staged, ValuesReadTwiceAndRunsOfTheSameExecutable) {
  constexpr int64_t kWidth = 24;
  OnnxModel b;
  b.input("x", {1, kWidth});
  b.ints("k", {1}, {3});
  b.floats("two", {}, {2.0f});
  b.floats("half", {}, {0.5f});
  b.ints("one", {}, {1});
  b.node("Relu", {"x"}, {"r"});
  b.node("TopK", {"r", "k"}, {"values", "indices"});
  b.node("Mul", {"values", "two"}, {"doubled"});
  b.node("Greater", {"r", "half"}, {"mask"});
  b.node("NonZero", {"mask"}, {"where"});
  set_int(b.node("Gather", {"where", "one"}, {"cols"}), "axis", 0);
  set_int(b.node("Gather", {"r", "cols"}, {"picked"}), "axis", 1);
  b.node("Mul", {"picked", "two"}, {"out"});
  for (const char *name : {"doubled", "values", "r", "out"})
    b.output(name);
  const Model m = import_onnx_bytes(b.bytes(), "test.onnx");
  ASSERT_TRUE(needs_stages(m));
  auto backend = runtime::make_backend(GetParam());
  auto reference = runtime::make_backend("reference");
  StagedExecutable exe(m, m.weights, *backend, "test.onnx");
  exe.check_against(reference.get());
  for (int trial = 0; trial < 4; ++trial) {
    Tensor<float> x(Shape{1, kWidth}, 0.0f);
    for (int64_t i = 0; i < kWidth; ++i)
      x[i] = 3 * std::sin(static_cast<float>(i * (trial / 2 + 3)));
    if (trial % 2 == 0)
      exe.set_inputs({{"x", x}});
    exe.execute();
    EXPECT_LE(exe.checked_error(), 1e-6);
    std::vector<float> r(x.data), picked;
    for (float &v : r)
      v = std::max(v, 0.0f);
    for (float v : r)
      if (v > 0.5f)
        picked.push_back(2 * v);
    std::vector<float> top(r);
    std::sort(top.begin(), top.end(), std::greater<>());
    top.resize(3);
    std::vector<float> doubled(top);
    for (float &v : doubled)
      v *= 2;
    const HeldValues &out = exe.results();
    EXPECT_EQ(out.at("r").value.data, r) << trial;
    EXPECT_EQ(out.at("values").value.data, top) << trial;
    EXPECT_EQ(out.at("doubled").value.data, doubled) << trial;
    EXPECT_EQ(out.at("out").value.data, picked) << trial;
  }
}

// Boxes and scores as a single-stage detector ends: scores through a
// sigmoid, NonMaxSuppression, then the kept boxes gathered and shifted.
TEST_P(Staged, NonMaxSuppressionSelectsBoxesTheTailThenGathers) {
  OnnxModel b;
  b.input("boxes", {1, 5, 4});
  b.input("logits", {1, 1, 5});
  b.ints("max_out", {1}, {10});
  b.floats("iou", {1}, {0.5f});
  b.floats("threshold", {1}, {0.2f});
  b.ints("two", {}, {2});
  b.ints("flat", {2}, {5, 4});
  b.floats("one", {}, {1.0f});
  b.node("Sigmoid", {"logits"}, {"scores"});
  b.node("NonMaxSuppression",
         {"boxes", "scores", "max_out", "iou", "threshold"}, {"selected"});
  set_int(b.node("Gather", {"selected", "two"}, {"which"}), "axis", 1);
  b.node("Reshape", {"boxes", "flat"}, {"all"});
  set_int(b.node("Gather", {"all", "which"}, {"kept"}), "axis", 0);
  b.node("Add", {"kept", "one"}, {"out"});
  b.output("out");
  const Model m = import_onnx_bytes(b.bytes(), "test.onnx");
  ASSERT_TRUE(needs_stages(m));
  // Boxes 0 and 1 overlap (IoU 0.9): the lower score's goes. Box 3's
  // score is under the threshold. Boxes 2 and 4 stand alone.
  Tensor<float> boxes(Shape{1, 5, 4}, {0,  0,  10, 10, //
                                       0,  1,  10, 10, //
                                       20, 20, 30, 30, //
                                       40, 40, 50, 50, //
                                       60, 60, 61, 61});
  Tensor<float> logits(Shape{1, 1, 5}, {1.0f, 2.0f, 0.5f, -3.0f, 3.0f});
  const HeldValues out =
      run(m, GetParam(), {{"boxes", boxes}, {"logits", logits}});
  // By score: box 4, box 1, box 2 (box 0 suppressed by box 1).
  EXPECT_EQ(out.at("out").value.shape, (Shape{3, 4}));
  EXPECT_EQ(out.at("out").value.data,
            (std::vector<float>{61, 61, 62, 62, 1, 2, 11, 11, 21, 21, 31, 31}));
}

// The optimizer times candidates of such a model: each graph, the model's
// kept nodes beside it, runs in stages; a graph without an opaque
// operator (the launch probe) as the backend prepares it.
TEST(StagedTimer, TimesAGraphThatKeepsNodesInStages) {
  OnnxModel b;
  b.input("x", {1, 6});
  b.ints("k", {1}, {3});
  b.node("Relu", {"x"}, {"r"});
  b.node("TopK", {"r", "k"}, {"values", "indices"});
  b.output("values");
  const Model m = import_onnx_bytes(b.bytes(), "test.onnx");
  auto cpu = runtime::make_backend("cpu");
  const GraphTimer timer = staged_timer(m.kept_onnx, *cpu, 1, 7, "test.onnx");
  EXPECT_GE(timer(m.graph, m.weights)(), 0.0);
  Graph plain;
  plain.mark_output(plain.add1(OpKind::Relu, {plain.input("x", Shape{4})}));
  EXPECT_GE(timer(plain, {})(), 0.0);
}

TEST(StagedErrors, AKeptNodeQuarryCannotRunIsNamed) {
  OnnxModel b;
  b.input("x", {2, 3});
  b.node("Relu", {"x"}, {"r"});
  b.node("Celsius", {"r"}, {"y"}).set_domain("example.custom");
  b.output("y");
  auto *op = b.proto().add_opset_import();
  op->set_domain("example.custom");
  op->set_version(1);
  const Model m = import_onnx_bytes(b.bytes(), "test.onnx");
  ASSERT_TRUE(needs_stages(m));
  auto backend = runtime::make_backend("reference");
  EXPECT_EQ(error_of([&] {
              StagedExecutable exe(m, m.weights, *backend, "test.onnx");
              exe.set_inputs({{"x", Tensor<float>(Shape{2, 3}, 1.0f)}});
              exe.execute();
            }),
            "test.onnx: node 'Celsius_y' (Celsius) is kept from the imported "
            "model as it is, and quarry has no kernel for it");
}

// A shape that grows with the values without bound: the count of values
// over 0 times 10^9 elements. Refused in one line naming the node, before
// anything that size is allocated.
TEST(StagedErrors, AShapeThatGrowsWithTheValuesIsRefused) {
  OnnxModel b;
  b.input("x", {1, 8});
  b.floats("zero", {}, {0.0f});
  b.ints("one", {}, {1});
  b.ints("huge", {1}, {1000000000});
  b.node("Greater", {"x", "zero"}, {"mask"});
  b.node("NonZero", {"mask"}, {"where"});
  b.node("Shape", {"where"}, {"shape"});
  set_int(b.node("Gather", {"shape", "one"}, {"count"}), "axis", 0);
  b.node("Unsqueeze", {"count", "zero_axis"}, {"count1"});
  b.ints("zero_axis", {1}, {0});
  b.node("Mul", {"count1", "huge"}, {"extent"});
  b.node("ConstantOfShape", {"extent"}, {"out"});
  b.output("out");
  const Model m = import_onnx_bytes(b.bytes(), "test.onnx");
  auto backend = runtime::make_backend("reference");
  StagedExecutable exe(m, m.weights, *backend, "test.onnx");
  exe.set_inputs({{"x", Tensor<float>(Shape{1, 8}, 1.0f)}});
  EXPECT_EQ(error_of([&] { exe.execute(); }),
            "test.onnx: node 'ConstantOfShape_out' (ConstantOfShape): a "
            "constant of [8000000000] is too large to fold");
}

} // namespace
} // namespace quarry::staged
