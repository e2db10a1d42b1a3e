//===- cuda_backend_test.cc - cuDNN/cuBLAS results equal the reference's --===//
//
// Exits 77, which ctest reports as skipped, when no CUDA device is present.
//
//===----------------------------------------------------------------------===//
#include "layout_cases.h"
#include "quarry/models/zoo.h"
#include "quarry/runtime/cost_cache.h"
#include "quarry/runtime/cuda_backend.h"
#include "quarry/runtime/reference_backend.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

namespace quarry::runtime::testing {
namespace {

/// One graph on the cuda backend and the reference with the same random
/// values. Instantiated over every operator configuration, whole graphs,
/// every operator of the cpu backend (the float-only ones of ONNX import
/// included) on a convolution's result, and broadcasting by every rule ONNX
/// allows for every function.
class CudaCase : public ::testing::TestWithParam<Case> {};

TEST_P(CudaCase, MatchesReference) {
  auto gpu = make_cuda_backend();
  auto ref = make_reference_backend();
  expect_matches_reference(*gpu, *ref, GetParam());
}

std::string case_name(const ::testing::TestParamInfo<Case> &info) {
  return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(Operator, CudaCase,
                         ::testing::ValuesIn(operator_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Graph, CudaCase, ::testing::ValuesIn(graph_cases()),
                         case_name);
INSTANTIATE_TEST_SUITE_P(Layout, CudaCase, ::testing::ValuesIn(layout_cases()),
                         case_name);
INSTANTIATE_TEST_SUITE_P(Broadcast, CudaCase,
                         ::testing::ValuesIn(broadcast_cases()), case_name);

TEST(CudaBackend, EvenConvolutionWithSamePaddingIsAClearError) {
  // cuDNN's legacy API pads symmetrically; pools that need more padding on
  // one side run on quarry's own kernel, convolutions are refused.
  const Graph g = parse_graph("input x: [1,2,6,6]\nweight w: [3,2,2,2]\n"
                              "y = conv2d[pad=same](x, w)\noutput y\n");
  try {
    make_cuda_backend()->prepare(g, random_run_bindings(g, 1));
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "backend cuda: conv2d: kernel 2 needs "
                           "asymmetric padding, which this backend does not "
                           "do (node 'y' (conv2d))");
  }
}

/// Fusion cases cuda runs: convolutions with a bias, a residual sum and
/// relu, and chains it lowers node by node (no div, pow or matmul
/// epilogues).
std::vector<FusionCase> cuda_fusion_cases() {
  std::vector<FusionCase> cs;
  for (const FusionCase &f : fusion_cases())
    if (f.c.name.rfind("conv_", 0) == 0 &&
        f.c.text.find("fn=div") == std::string::npos)
      cs.push_back(f);
  return cs;
}

class CudaFusion : public ::testing::TestWithParam<FusionCase> {};

TEST_P(CudaFusion, MatchesReferenceFusedOrNot) {
  auto ref = make_reference_backend();
  for (bool fuse : {true, false})
    for (bool graphs : {true, false}) {
      BackendOptions o;
      o.fuse = fuse;
      o.cuda_graphs = graphs;
      auto gpu = make_cuda_backend(o);
      expect_matches_reference(*gpu, *ref, GetParam().c);
    }
}

INSTANTIATE_TEST_SUITE_P(All, CudaFusion,
                         ::testing::ValuesIn(cuda_fusion_cases()),
                         [](const ::testing::TestParamInfo<FusionCase> &i) {
                           return i.param.c.name;
                         });

TEST(CudaBackend, ConvBiasResidualReluIsOneStep) {
  const Graph g = parse_graph(
      "input x: [1,8,6,6]\nweight w: [16,8,3,3]\nweight b: [16,1,1]\n"
      "weight v: [16,8,1,1]\n"
      "y = relu(ewadd(broadcast[fn=add](conv2d(x, w), b), conv2d(x, v)))\n"
      "output y\n");
  auto e = make_cuda_backend()->prepare(g, random_run_bindings(g, 1));
  EXPECT_EQ(e->steps()[0].impl, "2 steps, 1 fused by cuDNN");
}

TEST(CudaBackend, AGraphReplaysWithNewInputs) {
  // The CUDA graph is recorded on the first run; later runs read the new
  // inputs from the same buffers.
  const Graph g = parse_graph(graph_cases()[0].text);
  auto gpu = make_cuda_backend();
  auto ref = make_reference_backend();
  const auto weights = random_run_bindings(g, 1);
  auto e = gpu->prepare(g, weights);
  for (uint64_t seed : {2, 3, 4}) {
    auto inputs = random_run_bindings(g, seed);
    for (const auto &[name, t] : weights)
      if (g.node(g.find_variable(name)).kind == OpKind::Weight)
        inputs.insert_or_assign(name, t);
    EXPECT_LE(max_relative_error(run_once(*e, inputs),
                                 run_once(*ref->prepare(g, inputs), inputs)),
              kTolerance)
        << seed;
  }
}

TEST(CudaBackend, AnOperatorWithoutAKernelRunsOnTheHostInTheGraph) {
  // hardmax has no cuda kernel: its step copies to the host and back
  // between two device kernels, inside the captured CUDA graph, and each
  // replay sees the new inputs.
  const Graph g = parse_graph("input x: [4,6]\n"
                              "y = relu(hardmax(sigmoid(x)))\noutput y\n");
  auto gpu = make_cuda_backend();
  auto ref = make_reference_backend();
  auto e = gpu->prepare(g, {});
  for (uint64_t seed : {2, 3, 4}) {
    const auto inputs = random_run_bindings(g, seed);
    EXPECT_EQ(run_once(*e, inputs)[0].data,
              run_once(*ref->prepare(g, inputs), inputs)[0].data)
        << seed;
  }
  EXPECT_EQ(e->steps()[0].label, "graph (one CUDA graph launch)");
  EXPECT_NE(e->steps()[0].impl.find("1 by reference semantics on the host"),
            std::string::npos)
      << e->steps()[0].impl;
}

TEST(CudaBackend, WhereAndIsNanRunOnTheDevice) {
  // The condition [4,1], the chosen operands [1,6] and [4,6]: where
  // broadcasts all three; x != x is ONNX's IsNaN as import writes it. A
  // NaN in the operand not chosen never reaches the result.
  const Graph g = parse_graph(
      "input c: [4,1]\ninput s: [1]\ninput x: [1,6]\ninput y: [4,6]\n"
      "z = where(broadcast[fn=gt](c, s), x, y)\n"
      "n = broadcast[fn=ne](y, y)\noutput z, n\n");
  auto gpu = make_cuda_backend();
  auto ref = make_reference_backend();
  auto e = gpu->prepare(g, {});
  for (uint64_t seed : {2, 3, 4}) {
    auto inputs = random_run_bindings(g, seed);
    auto &y = inputs.at("y").data;
    y[1] = std::nanf("");
    y[10] = std::nanf("");
    const auto got = run_once(*e, inputs);
    const auto want = run_once(*ref->prepare(g, inputs), inputs);
    SCOPED_TRACE(seed);
    ASSERT_EQ(got.size(), want.size());
    for (size_t o = 0; o < got.size(); ++o)
      for (size_t i = 0; i < got[o].data.size(); ++i) {
        const float a = got[o].data[i], b = want[o].data[i];
        EXPECT_TRUE(a == b || (std::isnan(a) && std::isnan(b)))
            << "output " << o << " element " << i << ": " << a << " against "
            << b;
      }
    EXPECT_EQ(got[1].data[1], 1.0f);
    EXPECT_EQ(got[1].data[0], 0.0f);
  }
  EXPECT_EQ(e->steps()[0].impl.find("on the host"), std::string::npos)
      << e->steps()[0].impl;
}

/// A graph prepared on one stream and on as many as its widest wave needs,
/// with the same weights, run on several inputs: the same bits out, and
/// not all of them NaN (which would prove nothing).
void expect_streams_bitwise(const Graph &g, const Bindings<float> &weights,
                            const std::string &name) {
  SCOPED_TRACE(name);
  BackendOptions one, many;
  one.streams = 1;
  many.streams = 0;
  auto a = make_cuda_backend(one);
  auto b = make_cuda_backend(many);
  auto ea = a->prepare(g, weights);
  auto eb = b->prepare(g, weights);
  for (uint64_t seed : {2, 3}) {
    auto inputs = random_run_bindings(g, seed);
    for (const auto &[n, t] : weights)
      if (g.node(g.find_variable(n)).kind == OpKind::Weight)
        inputs.insert_or_assign(n, t);
    const auto want = run_once(*ea, inputs);
    SCOPED_TRACE("inputs " + std::to_string(seed));
    expect_bitwise_equal(run_once(*eb, inputs), want);
    for (size_t o = 0; o < want.size(); ++o)
      EXPECT_TRUE(std::any_of(want[o].data.begin(), want[o].data.end(),
                              [](float x) { return std::isfinite(x); }))
          << "output " << o << " is not finite anywhere";
  }
}

/// Graphs with tf32 allowed, within tf32's stated tolerance.
class CudaTf32 : public ::testing::TestWithParam<Case> {};

TEST_P(CudaTf32, WithinItsTolerance) {
  BackendOptions o;
  o.precision = "tf32";
  auto gpu = make_cuda_backend(o);
  EXPECT_NE(gpu->device_name().find(", tf32"), std::string::npos);
  auto ref = make_reference_backend();
  expect_matches_reference(*gpu, *ref, GetParam(), precision_tolerance("tf32"));
}

INSTANTIATE_TEST_SUITE_P(Graph, CudaTf32, ::testing::ValuesIn(graph_cases()),
                         case_name);

TEST(CudaBackend, RefusesAPrecisionItCannotHonour) {
  BackendOptions o;
  o.precision = "bf16";
  EXPECT_THROW(make_cuda_backend(o), Error);
}

class CudaStreams : public ::testing::TestWithParam<Case> {};

TEST_P(CudaStreams, BitwiseAsOneStream) {
  const Graph g = parse_graph(GetParam().text, GetParam().name);
  expect_streams_bitwise(g, random_run_bindings(g, 1), GetParam().name);
}

INSTANTIATE_TEST_SUITE_P(Graph, CudaStreams, ::testing::ValuesIn(graph_cases()),
                         case_name);
INSTANTIATE_TEST_SUITE_P(Layout, CudaStreams,
                         ::testing::ValuesIn(layout_cases()), case_name);

TEST(CudaStreams, TheSixNetworksBitwiseAsOneStream) {
  // With the networks' own weights (scaled so activations stay finite).
  for (const ModelInfo &m : model_list()) {
    const Model model = build_model(m.name);
    expect_streams_bitwise(model.graph, model.weights, std::string(m.name));
  }
}

TEST(CudaStreams, IndependentBranchesRunOnSeveralStreams) {
  ModelOptions o;
  o.weight_values = false;
  const Graph g = build_model("inception_v3", o).graph;
  BackendOptions many;
  many.streams = 0;
  auto e = make_cuda_backend(many)->prepare(g, random_run_bindings(g, 1));
  EXPECT_NE(e->steps()[0].impl.find(" streams in "), std::string::npos)
      << e->steps()[0].impl;
}

TEST(CudaBackend, MismatchedInputShape) {
  const Graph g = parse_graph("input x: [2,3]\ny = relu(x)\noutput y\n");
  auto e = make_cuda_backend()->prepare(g, {});
  EXPECT_THROW(e->set_inputs({{"x", Tensor<float>(Shape{3, 2}, 0.0f)}}), Error);
}

TEST(CudaBackend, CostIsMeasuredAndCached) {
  const auto path =
      std::filesystem::temp_directory_path() / "quarry_cuda_cost_cache_test";
  std::filesystem::remove(path);
  auto gpu = make_cuda_backend();
  const Graph g = parse_graph("input x: [1,64,28,28]\nweight w: [64,64,3,3]\n"
                              "y = conv2d[act=relu](x, w)\noutput y\n");
  CostCache cache(path.string());
  bool measured = false;
  const double ms =
      cached_measure(cache, *gpu, op_config(g, 2), {2, 5, 1}, &measured);
  EXPECT_TRUE(measured);
  EXPECT_GT(ms, 0.0);
  EXPECT_EQ(cached_measure(cache, *gpu, op_config(g, 2), {2, 5, 1}, &measured),
            ms);
  EXPECT_FALSE(measured);
}

} // namespace
} // namespace quarry::runtime::testing

int main(int argc, char **argv) {
  if (quarry::runtime::cuda_device_count() == 0) {
    std::printf("no CUDA device: skipped\n");
    return 77;
  }
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
