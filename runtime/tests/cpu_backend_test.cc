//===- cpu_backend_test.cc - oneDNN results equal the reference's ---------===//
#include "cases.h"
#include "quarry/runtime/backends.h"
#include "quarry/runtime/cpu_backend.h"
#include "quarry/runtime/measure.h"
#include "quarry/runtime/op_config.h"
#include "quarry/runtime/reference_backend.h"

#include <cmath>

namespace quarry::runtime::testing {
namespace {

class CpuOperator : public ::testing::TestWithParam<Case> {};
class CpuGraph : public ::testing::TestWithParam<Case> {};

TEST_P(CpuOperator, MatchesReference) {
  auto cpu = make_cpu_backend();
  auto ref = make_reference_backend();
  expect_matches_reference(*cpu, *ref, GetParam());
}

TEST_P(CpuGraph, MatchesReference) {
  auto cpu = make_cpu_backend();
  auto ref = make_reference_backend();
  expect_matches_reference(*cpu, *ref, GetParam());
}

std::string case_name(const ::testing::TestParamInfo<Case> &info) {
  return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(All, CpuOperator,
                         ::testing::ValuesIn(operator_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(All, CpuGraph, ::testing::ValuesIn(graph_cases()),
                         case_name);

/// The cpu backend in bf16 mode, or nothing where the processor has no
/// avx512_bf16.
std::unique_ptr<Backend> bf16_backend() {
  BackendOptions o;
  o.precision = "bf16";
  try {
    return make_cpu_backend(o);
  } catch (const Error &) {
    return nullptr;
  }
}

/// Every operator configuration and graph in bf16 mode, within bf16's
/// stated tolerance of the reference.
class CpuBf16 : public ::testing::TestWithParam<Case> {};

TEST_P(CpuBf16, WithinItsTolerance) {
  auto cpu = bf16_backend();
  if (!cpu)
    GTEST_SKIP() << "this processor has no avx512_bf16";
  auto ref = make_reference_backend();
  expect_matches_reference(*cpu, *ref, GetParam(), precision_tolerance("bf16"));
}

INSTANTIATE_TEST_SUITE_P(Operator, CpuBf16,
                         ::testing::ValuesIn(operator_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Graph, CpuBf16, ::testing::ValuesIn(graph_cases()),
                         case_name);

TEST(CpuBackend, Bf16ConvolutionsAndProductsRunOnBfloat16Kernels) {
  auto cpu = bf16_backend();
  if (!cpu)
    GTEST_SKIP() << "this processor has no avx512_bf16";
  EXPECT_NE(cpu->device_name().find(", bf16 products"), std::string::npos);
  const Graph g = parse_graph(
      "input x: [1,32,14,14]\nweight w: [32,32,3,3]\n"
      "input a: [64,256]\nweight b: [256,128]\n"
      "y = conv2d[s=1,1 pad=same](x, w)\nz = matmul(a, b)\noutput y, z\n");
  auto e = cpu->prepare(g, random_run_bindings(g, 1));
  int bf16_kernels = 0;
  for (const StepInfo &s : e->steps())
    bf16_kernels += s.impl.find("bf16") != std::string::npos ? 1 : 0;
  EXPECT_EQ(bf16_kernels, 2);
}

TEST(CpuBackend, ASoftmaxRunsAsLinesWhereOneDnnIsSlow) {
  // Two scores per anchor, or an axis that is not innermost, take the
  // lines kernel; a long innermost axis stays with oneDNN's softmax.
  const Graph g = parse_graph("input a: [1,300,2]\ninput b: [1,300,64]\n"
                              "input c: [1,2,300]\n"
                              "x = softmax[axis=2](a)\ny = softmax[axis=2](b)\n"
                              "z = softmax[axis=1](c)\noutput x, y, z\n");
  auto e = make_cpu_backend()->prepare(g, random_run_bindings(g, 1));
  std::vector<std::string> impls;
  for (const StepInfo &s : e->steps())
    impls.push_back(s.impl.substr(0, 6));
  EXPECT_EQ(impls, (std::vector<std::string>{"loops+", "jit:av", "loops+"}));
}

TEST(CpuBackend, RefusesAPrecisionItCannotHonour) {
  BackendOptions o;
  o.precision = "tf32";
  try {
    make_cpu_backend(o);
    ADD_FAILURE() << "tf32 accepted";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()),
              "backend cpu: precision 'tf32' is not supported (fp32, or bf16 "
              "where the processor has avx512_bf16)");
  }
}

TEST(CpuBackend, RunsAgainWithNewInputs) {
  const Graph g = parse_graph("input x: [2,3]\nweight w: [3,4]\n"
                              "y = matmul[act=relu](x, w)\noutput y\n");
  auto cpu = make_cpu_backend();
  auto ref = make_reference_backend();
  auto values = random_run_bindings(g, 1);
  auto e = cpu->prepare(g, values);
  for (uint64_t seed : {2, 3}) {
    auto inputs = random_run_bindings(g, seed);
    inputs.insert_or_assign("w", values.at("w"));
    const auto want = run_once(*ref->prepare(g, values), inputs);
    EXPECT_LE(max_relative_error(run_once(*e, inputs), want), kTolerance)
        << seed;
  }
}

TEST(CpuBackend, RoundingInAnEpilogueTakesHalvesToEven) {
  // An identity convolution of values halfway between integers, rounded in
  // its epilogue as a quantization rounds: each half goes to the even
  // neighbour, as the reference's nearbyint does.
  const Graph g = parse_graph("input x: [1,16,2,2]\nweight w: [16,16,1,1]\n"
                              "y = pointwise[fn=round](conv2d(x, w))\n"
                              "output y\n");
  Bindings<float> values;
  Tensor<float> x(Shape{1, 16, 2, 2}, std::vector<float>(64)),
      w(Shape{16, 16, 1, 1}, std::vector<float>(256));
  for (int64_t i = 0; i < x.numel(); ++i)
    x[i] = static_cast<float>(i - 32) + 0.5f;
  for (int64_t c = 0; c < 16; ++c)
    w[c * 16 + c] = 1.0f;
  values.emplace("x", x);
  values.emplace("w", w);
  auto e = make_cpu_backend()->prepare(g, values);
  EXPECT_EQ(count_steps(e->steps()).fused_nodes, 1);
  const Tensor<float> y = run_once(*e, values).at(0);
  for (int64_t i = 0; i < x.numel(); ++i)
    EXPECT_EQ(y[i], std::nearbyint(x[i])) << x[i];
}

TEST(CpuBackend, RunsOnceItsWeightsAreGone) {
  // A prepared graph keeps what it reads: the convolution's and matmul's
  // own laid-out weights (the plan's copies are let go), the static
  // operand of a sum as it is, and a static output.
  const Graph g = parse_graph(
      "input x: [1,4,6,6]\nweight w: [8,4,3,3]\nweight b: [1,8,6,6]\n"
      "weight m: [36,5]\nweight s: [2,2]\n"
      "y = ewadd(conv2d[pad=same act=relu](x, w), b)\n"
      "z = matmul(reshape[shape=8,36](y), m)\nt = relu(s)\n"
      "output z\noutput t\n");
  auto cpu = make_cpu_backend();
  auto ref = make_reference_backend();
  const Bindings<float> values = random_run_bindings(g, 1);
  std::unique_ptr<Executable> e;
  {
    const Bindings<float> weights = values; // gone before the runs
    e = cpu->prepare(g, weights);
  }
  const Bindings<float> inputs = random_run_inputs(g, 2);
  ASSERT_EQ(inputs.size(), 1u);
  const auto want = run_once(*ref->prepare(g, values), inputs);
  for (int run = 0; run < 2; ++run)
    EXPECT_LE(max_relative_error(run_once(*e, inputs), want), kTolerance);
}

TEST(RunInputs, TheInputsAloneWithTheValuesOfAllBindings) {
  const Graph g = parse_graph(
      "input x: [2,3]\nweight w: [3,4]\ny = matmul(x, w)\noutput y\n");
  const Bindings<float> all = random_run_bindings(g, 5);
  const Bindings<float> inputs = random_run_inputs(g, 5);
  ASSERT_EQ(inputs.size(), 1u);
  EXPECT_EQ(inputs.at("x").data, all.at("x").data);
}

TEST(CpuBackend, DeviceNameNamesTheThreads) {
  EXPECT_NE(make_cpu_backend()->device_name().find("threads"),
            std::string::npos);
}

// The gemv packs its weights in panels of columns and reads each panel's
// rows in four quarters: every split of the columns (whole panels, a strip
// after them, a strip alone) and of the rows (fewer than four, a remainder
// after the quarters) against the reference, on one thread and on two,
// with an epilogue reading an operand per column.
TEST(CpuGemv, EveryPanelAndRowSplitEqualsTheReference) {
  auto ref = make_reference_backend();
  for (int threads : {1, 2})
    for (int k : {1, 3, 4, 7, 258, 4099})
      for (int n : {1, 5, 31, 32, 33, 64, 100, 700}) {
        BackendOptions o;
        o.threads = threads;
        auto cpu = make_cpu_backend(o);
        const std::string text =
            "input x: [1," + std::to_string(k) + "]\nweight w: [" +
            std::to_string(k) + "," + std::to_string(n) + "]\ninput r: [1," +
            std::to_string(n) +
            "]\ny = ewadd(matmul[act=tanh](x, w), r)\noutput y\n";
        SCOPED_TRACE(text + std::to_string(threads) + " threads");
        const Graph g = parse_graph(text);
        const Bindings<float> values = random_run_bindings(g, 3);
        auto e = cpu->prepare(g, values);
        ASSERT_EQ(e->steps().size(), 1u);
        EXPECT_EQ(e->steps()[0].impl, "gemv");
        EXPECT_LE(
            max_relative_error(run_once(*e, values),
                               run_once(*ref->prepare(g, values), values)),
            kTolerance);
      }
}

TEST(CpuBackend, ACostMeasuredColdIsTheKernelsWithTheCachesEmptied) {
  auto cpu = make_cpu_backend();
  // The size comes from sysfs; a machine without it models no cache and
  // never measures cold.
  if (cpu->cache_bytes() == 0)
    GTEST_SKIP() << "no last-level cache size in "
                    "/sys/devices/system/cpu/cpu0/cache";
  EXPECT_GE(cpu->cache_bytes(), size_t{1} << 20);
  const Graph g = parse_graph("input x: [1,64]\nweight w: [64,4096]\n"
                              "y = matmul(x, w)\noutput y\n");
  MeasureOptions cold{1, 3, 1, 1, false};
  cold.cold_weights = true;
  const OpCost cost = measure_op(*cpu, op_config(g, g.outputs()[0].node), cold);
  EXPECT_EQ(cost.impl, "gemv");
  EXPECT_GT(cost.ms, 0);
  EXPECT_TRUE(std::isfinite(cost.ms));
}

} // namespace
} // namespace quarry::runtime::testing
