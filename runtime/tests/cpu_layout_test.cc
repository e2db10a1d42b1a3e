//===- cpu_layout_test.cc - Every layout, fused and not, equals reference -===//
#include "layout_cases.h"
#include "quarry/runtime/cpu_backend.h"
#include "quarry/runtime/measure.h"
#include "quarry/runtime/reference_backend.h"

#include <tuple>

namespace quarry::runtime::testing {
namespace {

/// "" lets the backend choose; the others force convolutions' layout.
const std::vector<std::string> kLayouts = {"", "nchw", "nhwc", "nChw8c",
                                           "nChw16c"};

using Param = std::tuple<std::string, bool>;

std::string param_name(const ::testing::TestParamInfo<Param> &info) {
  const auto &[layout, fuse] = info.param;
  return (layout.empty() ? std::string("auto") : layout) +
         (fuse ? "_fused" : "_unfused");
}

std::unique_ptr<Backend> cpu(const std::string &layout, bool fuse) {
  BackendOptions o;
  o.layout = layout;
  o.fuse = fuse;
  return make_cpu_backend(o);
}

std::vector<Case> all_cases() {
  std::vector<Case> cs = operator_cases();
  for (auto *more : {&graph_cases, &layout_cases, &broadcast_cases})
    for (Case &c : more())
      cs.push_back(std::move(c));
  for (const FusionCase &f : fusion_cases())
    cs.push_back(f.c);
  return cs;
}

// One test per layout and fusion setting, each over every case (a case
// that fails names itself): a few hundred graphs each, in one process.
class CpuLayouts : public ::testing::TestWithParam<Param> {};

TEST_P(CpuLayouts, EveryCaseMatchesReference) {
  const auto &[layout, fuse] = GetParam();
  auto b = cpu(layout, fuse);
  auto ref = make_reference_backend();
  for (const Case &c : all_cases())
    expect_matches_reference(*b, *ref, c);
}

INSTANTIATE_TEST_SUITE_P(All, CpuLayouts,
                         ::testing::Combine(::testing::ValuesIn(kLayouts),
                                            ::testing::Bool()),
                         param_name);

class CpuFusion : public ::testing::TestWithParam<FusionCase> {};

TEST_P(CpuFusion, FusesWhatItMayAndMatchesReference) {
  const FusionCase &f = GetParam();
  SCOPED_TRACE(f.c.text);
  const Graph g = parse_graph(f.c.text, f.c.name);
  const Bindings<float> values = random_run_bindings(g, 7);
  auto e = cpu("", true)->prepare(g, values);
  EXPECT_EQ(count_steps(e->steps()).fused_nodes, f.fused_nodes);
  EXPECT_LE(error_against_reference(*e, g, values), kTolerance);
  // Without fusion every node is its own kernel.
  EXPECT_EQ(
      count_steps(cpu("", false)->prepare(g, values)->steps()).fused_nodes, 0);
}

INSTANTIATE_TEST_SUITE_P(All, CpuFusion, ::testing::ValuesIn(fusion_cases()),
                         [](const ::testing::TestParamInfo<FusionCase> &i) {
                           return i.param.c.name;
                         });

/// The largest relative error of `g` on the cpu backend in `layout` on
/// `threads` threads against the reference, on random values of `seed`.
float error_on_cpu(const Graph &g, uint64_t seed, const std::string &layout,
                   int threads) {
  const Bindings<float> values = random_run_bindings(g, seed);
  const auto want =
      run_once(*make_reference_backend()->prepare(g, values), values);
  BackendOptions o;
  o.layout = layout;
  o.threads = threads;
  auto e = make_cpu_backend(o)->prepare(g, values);
  return max_relative_error(run_once(*e, values), want);
}

void expect_reference_on_1_and_2_threads(const Graph &g, uint64_t seed,
                                         const std::string &layout) {
  for (int threads : {1, 2})
    EXPECT_LE(error_on_cpu(g, seed, layout, threads), kTolerance)
        << threads << " threads";
}

TEST(CpuCopies, LargeConcatsAndResizesOnTwoThreadsEqualTheReference) {
  // Enough floats for the copies to be split between threads, in each
  // layout the convolutions may write.
  const Graph g = parse_graph("input x: [1,8,40,40]\nweight w: [64,8,1,1]\n"
                              "weight v: [32,8,1,1]\n"
                              "y = concat[axis=1](conv2d(x, w), conv2d(x, v))\n"
                              "z = concat[axis=2](conv2d(x, v), conv2d(x, v))\n"
                              "r = resize[shape=1,32,80,80](conv2d(x, v))\n"
                              "output y, z, r\n");
  for (const std::string layout : {"nchw", "nhwc", "nChw16c"})
    EXPECT_LE(error_on_cpu(g, 5, layout, 2), kTolerance) << layout;
}

TEST(CpuCopies, RunsOfAnyLengthInChannelsLastEqualTheReference) {
  // Channel counts that are no multiple of a vector (3, 13, 21): each
  // pixel's run of a channels-last concatenation ends in a partial vector;
  // so do the rows of a plain split along the width (4 and 7 floats) and
  // of a pad (11).
  const Graph g = parse_graph(
      "input x: [1,8,9,11]\nweight a: [3,8,1,1]\nweight b: [13,8,1,1]\n"
      "weight c: [21,8,1,1]\n"
      "y = concat[axis=1](conv2d(x, a), conv2d(x, b), conv2d(x, c))\n"
      "s, t = split[axis=3 sizes=4,7](x)\n"
      "p = pad[pads=0,0,1,0,0,0,2,0 value=0.5](x)\n"
      "output y, s, t, p\n");
  expect_reference_on_1_and_2_threads(g, 9, "nhwc");
}

TEST(CpuCopies, ChannelBlocksAreCopiedImageByImage) {
  // In nChw16c, operands of 16 and 32 channels fill their blocks: each
  // image's blocks of an operand are one run, copied by quarry's loops (two
  // images, so that a run that spans both would land wrong). One of 24
  // channels ends in a partial block and goes to oneDNN's concat.
  const Graph g = parse_graph(
      "input x: [2,8,7,9]\nweight a: [16,8,1,1]\nweight b: [32,8,3,3]\n"
      "weight c: [24,8,1,1]\n"
      "y = concat[axis=1](conv2d(x, a), conv2d[pad=same](x, b), conv2d(x, a))\n"
      "z = concat[axis=1](conv2d(x, a), conv2d(x, c))\n"
      "output y, z\n");
  expect_reference_on_1_and_2_threads(g, 4, "nChw16c");
  const Bindings<float> values = random_run_bindings(g, 4);
  std::vector<std::string> concats;
  for (const StepInfo &s : cpu("nChw16c", true)->prepare(g, values)->steps())
    if (s.label.find("(concat)") != std::string::npos)
      concats.push_back(s.impl + " " + s.layout);
  ASSERT_EQ(concats.size(), 2u);
  EXPECT_EQ(concats[0], "loops nChw16c");
  EXPECT_NE(concats[1].substr(0, 5), "loops");
}

TEST(CpuReorders, APlanThatNeedsReordersEqualsTheReference) {
  // A blocked convolution result read by a plain-only softmax, by another
  // convolution and by the graph's output: reorders in and out.
  const Graph g = parse_graph("input x: [1,16,6,6]\nweight w: [16,16,3,3]\n"
                              "weight v: [16,16,1,1]\n"
                              "c = conv2d[act=relu](x, w)\n"
                              "s = softmax[axis=1](c)\nd = conv2d(c, v)\n"
                              "output s, d, c\n");
  const Bindings<float> values = random_run_bindings(g, 3);
  auto e = cpu("nChw16c", true)->prepare(g, values);
  const StepCounts n = count_steps(e->steps());
  EXPECT_GE(n.reorders, 3); // x in, c to plain (softmax, output), d out
  EXPECT_EQ(n.kernels, 3);
  EXPECT_LE(error_against_reference(*e, g, values), kTolerance);
}

TEST(CpuReorders, OneReorderServesEveryReaderOfALayout) {
  const Graph g = parse_graph("input x: [1,16,6,6]\nweight w: [16,16,3,3]\n"
                              "c = conv2d(x, w)\n"
                              "output c, c\n");
  const Bindings<float> values = random_run_bindings(g, 3);
  auto e = cpu("nChw16c", true)->prepare(g, values);
  EXPECT_EQ(count_steps(e->steps()).reorders, 2); // x in, c out (once)
}

TEST(CpuReorders, ANetworkInOneLayoutReordersOnlyAtItsBorders) {
  // Convolutions, pooling, sums and concats keep the layout they are given.
  const Graph g = parse_graph(
      "input x: [1,16,8,8]\nweight w1: [16,16,3,3]\nweight w2: [16,16,1,1]\n"
      "a = conv2d[act=relu](x, w1)\nb = pool2d_max[k=3,3 s=1,1](a)\n"
      "c = relu(ewadd(conv2d(b, w2), a))\n"
      "y = pool2d_avg[k=2,2 s=2,2](concat[axis=1](c, b))\noutput y\n");
  const Bindings<float> values = random_run_bindings(g, 3);
  for (const char *layout : {"", "nhwc", "nChw16c"}) {
    auto e = cpu(layout, true)->prepare(g, values);
    EXPECT_EQ(count_steps(e->steps()).reorders, 2) << layout;
  }
}

TEST(CpuLayouts, AForcedLayoutLeavesAThreeChannelInputPlain) {
  // No blocked kernel reads an image's 3 channels blocked: the first
  // convolution reads them plain and writes the forced layout, rather than
  // running oneDNN's reference code.
  const Graph g =
      parse_graph("input x: [1,3,32,32]\nweight w: [16,3,3,3]\n"
                  "y = conv2d[s=2,2 pad=same act=relu](x, w)\noutput y\n");
  for (const char *layout : {"nChw8c", "nChw16c", "nhwc"}) {
    auto e = cpu(layout, true)->prepare(g, random_run_bindings(g, 1));
    for (const StepInfo &s : e->steps())
      if (!s.reorder) {
        EXPECT_EQ(s.impl.find("ref"), std::string::npos) << layout;
        EXPECT_EQ(s.layout, layout);
      }
  }
}

TEST(CpuLayouts, AForcedLayoutLeavesGroupsThatFillNoBlockToTheirKernel) {
  // ResNeXt's groups of 4 channels have no kernel in a blocked layout: the
  // grouped convolution runs in the layout oneDNN's kernel takes, with
  // reorders around it, and the convolutions beside it in the forced one.
  const Graph g = parse_graph(
      "input x: [1,32,14,14]\nweight w1: [64,32,1,1]\nweight w2: [64,4,3,3]\n"
      "weight w3: [32,64,1,1]\n"
      "a = conv2d[s=1,1 pad=same act=relu](x, w1)\n"
      "b = conv2d[s=1,1 pad=same act=relu](a, w2)\n"
      "y = conv2d[s=1,1 pad=same act=none](b, w3)\noutput y\n");
  for (const char *layout : {"nChw8c", "nChw16c"}) {
    auto e = cpu(layout, true)->prepare(g, random_run_bindings(g, 3));
    int forced = 0;
    for (const StepInfo &s : e->steps())
      if (!s.reorder) {
        EXPECT_EQ(s.impl.find("ref"), std::string::npos)
            << layout << " " << s.label;
        forced += s.layout == layout;
      }
    EXPECT_EQ(forced, 2) << layout;
    EXPECT_LE(error_on_cpu(g, 3, layout, 1), kTolerance) << layout;
  }
}

TEST(CpuLayouts, AConvolutionRunsInTheLayoutItNamesUnlessOneIsForced) {
  // The optimizer names a layout on every convolution of a graph it
  // measured faster so; a layout forced on the backend still wins.
  const Graph g = parse_graph(
      "input x: [1,32,14,14]\nweight w1: [32,32,3,3]\nweight w2: [32,32,1,1]\n"
      "a = conv2d[s=1,1 pad=same act=relu layout=nChw16c](x, w1)\n"
      "y = conv2d[s=1,1 pad=same act=none layout=nChw16c](a, w2)\n"
      "output y\n");
  for (const char *forced : {"", "nhwc"}) {
    auto e = cpu(forced, true)->prepare(g, random_run_bindings(g, 2));
    const std::string want = *forced ? forced : "nChw16c";
    int convolutions = 0;
    for (const StepInfo &s : e->steps())
      if (!s.reorder) {
        EXPECT_EQ(s.layout, want) << forced << " " << s.label;
        ++convolutions;
      }
    EXPECT_EQ(convolutions, 2);
    EXPECT_LE(error_on_cpu(g, 2, forced, 1), kTolerance) << forced;
  }
}

TEST(CpuReorders, ASplitOfAConvolutionKeepsItsLayout) {
  // A merged convolution split back into its parts (what the optimizer's
  // merges make): the parts stay in the convolution's layout, where going
  // plain would cost a reorder out and one back into each reader.
  const Graph g =
      parse_graph("input x: [1,16,8,8]\nweight w: [48,16,1,1]\n"
                  "weight v1: [16,16,3,3]\nweight v2: [16,32,3,3]\n"
                  "a, b = split[axis=1 sizes=16,32](conv2d[act=relu](x, w))\n"
                  "y = ewadd(conv2d(a, v1), conv2d(b, v2))\noutput y\n");
  const Bindings<float> values = random_run_bindings(g, 3);
  auto ref = make_reference_backend();
  for (const char *layout : {"", "nhwc", "nChw8c", "nChw16c"}) {
    auto e = cpu(layout, true)->prepare(g, values);
    EXPECT_EQ(count_steps(e->steps()).reorders, 2) << layout;
    EXPECT_LE(max_relative_error(run_once(*e, values),
                                 run_once(*ref->prepare(g, values), values)),
              kTolerance)
        << layout;
  }
}

// Inside a network a pooling reads the layout the convolution before it
// wrote; measured alone on plain nchw it can take many times as long (oneDNN
// has no fast nchw kernel for some windows), which made summed costs
// overstate every pooled network.
TEST(CpuMeasure, AnOperatorIsMeasuredInTheLayoutItsNetworkKeeps) {
  const Graph g = parse_graph("input x: [1,16,9,9]\n"
                              "y = pool2d_max[k=3,3 s=2,2 pad=valid](x)\n"
                              "output y\n");
  const OpConfig pool = op_config(g, g.outputs()[0].node);
  MeasureOptions quick;
  quick.warmup = 0;
  quick.runs = 2;
  for (const char *layout : {"nhwc", "nChw16c"}) {
    auto b = cpu(layout, true);
    EXPECT_NE(b->device_name().find(std::string(", activations ") + layout),
              std::string::npos)
        << b->device_name();
    const OpCost cost = measure_op(*b, pool, quick);
    EXPECT_EQ(cost.layout, layout);
    EXPECT_GT(cost.reorder_ms, 0) << layout; // into the layout and out
  }
  // Left to choose, the backend measures in the layout its convolutions
  // choose, and says which.
  auto b = cpu("", true);
  const std::string device = b->device_name();
  const std::string chosen = device.substr(device.rfind(' ') + 1);
  EXPECT_EQ(measure_op(*b, pool, quick).layout, chosen);
}

/// The conv2d nodes of `g`, in order.
std::vector<int32_t> conv_nodes(const Graph &g) {
  std::vector<int32_t> convs;
  for (int32_t id = 0; id < g.num_nodes(); ++id)
    if (g.node(id).kind == OpKind::Conv2D)
      convs.push_back(id);
  return convs;
}

TEST(CpuWinograd, OfferedWhereOneDnnHasItRunByItAndEqualToTheReference) {
  const Graph g = parse_graph("input x: [1,16,12,12]\nweight w: [32,16,3,3]\n"
                              "weight v: [32,32,3,3]\n"
                              "c = conv2d[act=relu](x, w)\n"
                              "y = relu(ewadd(conv2d(c, v), c))\noutput y\n");
  auto b = cpu("", true);
  const std::vector<int32_t> convs = conv_nodes(g);
  ASSERT_EQ(convs.size(), 2u);
  const std::vector<Attrs> ways = b->implementations(g, convs[0]);
  if (ways.empty())
    GTEST_SKIP() << "oneDNN has no Winograd kernel on " << b->device_name();
  ASSERT_EQ(ways.size(), 1u);
  EXPECT_EQ(ops::Conv2D::algorithm(ways[0]), ops::ConvAlgorithm::Winograd);
  // Not offered again once chosen, nor for what oneDNN lacks: a stride of
  // 2, a grouped convolution.
  EXPECT_EQ(b->implementations(g, convs[1]).size(), 1u);
  const Graph chosen = parse_graph(
      "input x: [1,16,12,12]\nweight w: [32,16,3,3]\n"
      "weight v: [32,32,3,3]\nc = conv2d[act=relu alg=winograd](x, w)\n"
      "y = relu(ewadd(conv2d[alg=winograd](c, v), c))\noutput y\n");
  EXPECT_TRUE(b->implementations(chosen, convs[0]).empty());
  for (const char *other : {"weight w: [32,16,3,3]\ny = conv2d[s=2,2](x, w)",
                            "weight w: [32,8,3,3]\ny = conv2d(x, w)"}) {
    const Graph o = parse_graph(std::string("input x: [1,16,12,12]\n") + other +
                                "\noutput y\n");
    EXPECT_TRUE(b->implementations(o, o.outputs()[0].node).empty()) << other;
  }
  const Bindings<float> values = random_run_bindings(chosen, 5);
  auto e = b->prepare(chosen, values);
  // The relu is a post-op oneDNN's Winograd kernel takes; a residual sum
  // is not, so the second convolution's chain stops before it: the sum
  // and its relu run on their own.
  std::vector<bool> winograd;
  for (const StepInfo &s : e->steps())
    if (!s.reorder)
      winograd.push_back(s.impl.find("wino") != std::string::npos);
  EXPECT_EQ(winograd, (std::vector<bool>{true, true, false, false}));
  EXPECT_LE(error_against_reference(*e, g, values), kTolerance);
  // In bf16 the kernels are float32's: nothing is offered.
  BackendOptions bf16;
  bf16.precision = "bf16";
  try {
    EXPECT_TRUE(make_cpu_backend(bf16)->implementations(g, convs[0]).empty());
  } catch (const Error &) {
    // no avx512_bf16 here
  }
}

TEST(CpuWinograd, TheNetworkReturnsToItsLayoutAfterAWinogradKernel) {
  // A Winograd result in oneDNN's blocked layout beside a channels-last
  // one: the concat copies in the network's layout, and the convolution
  // after it runs there, rather than the blocked layout spreading.
  const Graph g =
      parse_graph("input x: [1,16,12,12]\nweight w: [16,16,3,3]\n"
                  "weight v: [16,16,1,1]\nweight u: [16,32,3,3]\n"
                  "a = conv2d[act=relu alg=winograd](x, w)\nb = conv2d(x, v)\n"
                  "y = conv2d(concat[axis=1](a, b), u)\noutput y\n");
  auto b = cpu("", true);
  if (b->device_name().find("activations nhwc") == std::string::npos ||
      b->implementations(g, g.outputs()[0].node).empty())
    GTEST_SKIP() << "needs Winograd in a channels-last network: "
                 << b->device_name();
  const Bindings<float> values = random_run_bindings(g, 9);
  auto e = b->prepare(g, values);
  std::vector<std::string> kernels;
  for (const StepInfo &s : e->steps())
    if (!s.reorder)
      kernels.push_back(s.layout);
  EXPECT_EQ(kernels,
            (std::vector<std::string>{"nChw16c", "nhwc", "nhwc", "nhwc"}));
  EXPECT_LE(error_against_reference(*e, g, values), kTolerance);
}

TEST(CpuWinograd, AChosenWayIsPricedWithTheReordersItBrings) {
  const Graph g = parse_graph("input x: [1,16,12,12]\nweight w: [32,16,3,3]\n"
                              "y = conv2d(x, w)\noutput y\n");
  auto b = cpu("", true);
  const int32_t id = g.outputs()[0].node;
  const std::vector<Attrs> ways = b->implementations(g, id);
  if (ways.empty())
    GTEST_SKIP() << "oneDNN has no Winograd kernel on " << b->device_name();
  OpConfig c = op_config(g, id);
  EXPECT_FALSE(names_implementation(c));
  c.attrs = ways[0];
  ASSERT_TRUE(names_implementation(c));
  MeasureOptions quick;
  quick.warmup = 1;
  quick.runs = 3;
  const OpCost cost = measure_op(*b, c, quick);
  EXPECT_EQ(cost.layout, "nChw16c");
  // The graph input's reorder into the activations' layout stays out; the
  // one into Winograd's layout and the one out of it are the kernel's.
  Graph alone = single_op_graph(c);
  const Bindings<float> values = random_run_bindings(alone, 1);
  auto e = b->prepare_operator(alone, values);
  e->set_inputs(values);
  int leaving = 0, arriving = 0;
  for (const StepInfo &s : e->steps())
    if (s.reorder)
      ++(s.from_layout == "nchw" ? arriving : leaving);
  EXPECT_EQ(arriving, 1);
  EXPECT_EQ(leaving, 2);
}

TEST(CpuPixelProduct, OfferedForOneByOneConvolutionsRunAsAMatmul) {
  // Two images, so that the product's rows span the batch; the second
  // convolution sums the first's result in place.
  const Graph g = parse_graph("input x: [2,24,7,9]\nweight w: [40,24,1,1]\n"
                              "weight v: [40,40,1,1]\n"
                              "c = conv2d[act=relu](x, w)\n"
                              "y = relu(ewadd(conv2d(c, v), c))\noutput y\n");
  auto b = cpu("", true);
  if (b->device_name().find("activations nhwc") == std::string::npos)
    GTEST_SKIP() << "offered where activations are channels-last: "
                 << b->device_name();
  const std::vector<int32_t> convs = conv_nodes(g);
  ASSERT_EQ(convs.size(), 2u);
  for (int32_t id : convs) {
    const std::vector<Attrs> ways = b->implementations(g, id);
    ASSERT_EQ(ways.size(), 1u);
    EXPECT_EQ(ops::Conv2D::algorithm(ways[0]), ops::ConvAlgorithm::Matmul);
  }
  // Not for a strided, grouped or padded 3x3 one; not once chosen.
  for (const char *other :
       {"weight w: [32,16,1,1]\ny = conv2d[s=2,2](x, w)",
        "weight w: [32,8,1,1]\ny = conv2d(x, w)",
        "weight w: [32,16,3,1]\ny = conv2d(x, w)",
        "weight w: [32,16,1,1]\ny = conv2d[alg=matmul](x, w)"}) {
    const Graph o = parse_graph(std::string("input x: [1,16,12,12]\n") + other +
                                "\noutput y\n");
    EXPECT_TRUE(b->implementations(o, o.outputs()[0].node).empty()) << other;
  }
  const Graph chosen =
      parse_graph("input x: [2,24,7,9]\nweight w: [40,24,1,1]\n"
                  "weight v: [40,40,1,1]\n"
                  "c = conv2d[act=relu alg=matmul](x, w)\n"
                  "y = relu(ewadd(conv2d[alg=matmul](c, v), c))\noutput y\n");
  const Bindings<float> values = random_run_bindings(chosen, 3);
  auto e = b->prepare(chosen, values);
  std::vector<std::string> kernels;
  for (const StepInfo &s : e->steps())
    if (!s.reorder)
      kernels.push_back(s.impl.substr(0, s.impl.find(' ')) + " " + s.layout);
  // Both run as products, in the network's layout, the sum and its relu
  // in the second one's epilogue.
  EXPECT_EQ(kernels, (std::vector<std::string>{"matmul nhwc", "matmul nhwc"}));
  EXPECT_LE(error_against_reference(*e, g, values), kTolerance);
}

TEST(CpuThreads, TheThreadCountIsHonoured) {
  for (int threads : {1, 2}) {
    BackendOptions o;
    o.threads = threads;
    auto b = make_cpu_backend(o);
    EXPECT_NE(
        b->device_name().find(", " + std::to_string(threads) + " threads"),
        std::string::npos)
        << b->device_name();
    // A convolution, and gemvs whose threads split their panels: one
    // with a strip of columns after its whole panels, one wide with rows
    // left over after its quarters, one a single strip too narrow to
    // split.
    for (const std::string &text :
         {operator_cases()[0].text,
          std::string("input x: [1,300]\nweight w: [300,700]\n"
                      "y = matmul[act=tanh](x, w)\noutput y\n"),
          std::string("input x: [1,303]\nweight w: [303,2050]\n"
                      "y = matmul[act=tanh](x, w)\noutput y\n"),
          std::string("input x: [1,5001]\nweight w: [5001,20]\n"
                      "y = matmul[act=tanh](x, w)\noutput y\n")}) {
      const Graph g = parse_graph(text);
      auto ref = make_reference_backend();
      const auto values = random_run_bindings(g, 1);
      EXPECT_LE(max_relative_error(run_once(*b->prepare(g, values), values),
                                   run_once(*ref->prepare(g, values), values)),
                kTolerance);
    }
  }
}

TEST(CpuLayouts, UnknownLayoutIsAClearError) {
  BackendOptions o;
  o.layout = "nCdhw16c";
  try {
    make_cpu_backend(o);
    FAIL();
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "backend cpu: unknown layout 'nCdhw16c' (nchw, "
                           "nhwc, nChw8c, nChw16c)");
  }
}

// A sum of two convolutions each read once could join either one's chain:
// it joins the first operand's, however the nodes are listed, so that which
// nodes run alone is a property of the graph, not of its node order.
TEST(CpuFusion, ASumJoinsItsFirstOperandsChainWhateverTheNodeOrder) {
  const std::string head = "input x: [1,8,6,6]\nweight w: [16,8,3,3]\n"
                           "weight v: [16,8,1,1]\n";
  for (const std::string body : {"a = conv2d(x, w)\nb = conv2d(x, v)\n",
                                 "b = conv2d(x, v)\na = conv2d(x, w)\n"}) {
    const Graph g =
        parse_graph(head + body + "y = relu(ewadd(a, b))\noutput y\n", "sum");
    const std::vector<bool> fused = cpu("", true)->fused_away(g);
    std::vector<std::string> absorbed;
    for (int32_t id = 0; id < g.num_nodes(); ++id)
      if (fused[id])
        absorbed.push_back(std::string(op_name(g.node(id).kind)));
    EXPECT_EQ(absorbed, (std::vector<std::string>{"ewadd", "relu"})) << body;
    // The fused step is conv a's (reading w), whichever comes first.
    auto e = cpu("", true)->prepare(g, random_run_bindings(g, 7));
    int fused_steps = 0;
    for (const StepInfo &s : e->steps())
      if (s.nodes.size() > 1) {
        ++fused_steps;
        EXPECT_EQ(g.node(s.nodes[0]).inputs[1].node, g.find_variable("w"))
            << body;
      }
    EXPECT_EQ(fused_steps, 1) << body;
  }
}

// Residual blocks in a row: the second block's sum accumulates onto the
// first's result, which itself lives in the buffer of the value it was
// accumulated onto. Nothing reads either value afterwards, so both sums run
// in place; only a buffer a later step still reads is copied first.
TEST(CpuFusion, ResidualSumsInARowAccumulateInPlace) {
  const std::string head =
      "input x: [1,16,6,6]\nweight w1: [16,16,1,1]\nweight w2: [16,16,1,1]\n"
      "weight w3: [16,16,1,1]\nweight w4: [16,16,1,1]\n"
      "t = conv2d(x, w1)\ny1 = relu(ewadd(conv2d(x, w2), t))\n"
      "u = conv2d[act=relu](y1, w3)\n"
      "y2 = relu(ewadd(conv2d(u, w4), y1))\n";
  struct Expected {
    std::string text;
    int in_place, onto_copies;
    std::string layout = "";
  };
  for (const Expected &want :
       {Expected{head + "output y2\n", 2, 0},
        // The first block's result is read after the second sum, which
        // then adds it to the convolution as an operand.
        Expected{head + "z = sigmoid(y1)\noutput y2, z\n", 1, 0},
        // The first sum accumulates onto a view of a value read later (a
        // reshape, which shares its operand's buffer where that is plain):
        // it starts from a copy; the second is in place.
        Expected{"input x: [1,16,6,6]\nweight w1: [16,16,1,1]\n"
                 "weight w2: [16,16,1,1]\nweight w3: [16,16,1,1]\n"
                 "weight w4: [16,16,1,1]\nd = conv2d(x, w1)\n"
                 "t = reshape[shape=1,16,6,6](d)\n"
                 "y1 = relu(ewadd(conv2d(x, w2), t))\n"
                 "u = conv2d[act=relu](y1, w3)\n"
                 "y2 = relu(ewadd(conv2d(u, w4), y1))\nz = tanh(d)\n"
                 "output y2, z\n",
                 2, 1, "nchw"},
        // The convolution reads a view of the value its sum accumulates
        // onto: that value is read last here, but not in place.
        Expected{"input x: [1,16,6,6]\nweight w1: [16,16,1,1]\n"
                 "weight w2: [16,16,1,1]\nt = conv2d(x, w1)\n"
                 "r = reshape[shape=1,16,6,6](t)\n"
                 "y = relu(ewadd(conv2d(r, w2), t))\noutput y\n",
                 1, 1, "nchw"}}) {
    const std::string &text = want.text;
    SCOPED_TRACE(text);
    const Graph g = parse_graph(text, "blocks");
    const Bindings<float> values = random_run_bindings(g, 7);
    auto e = cpu(want.layout, true)->prepare(g, values);
    int in_place = 0, onto_copies = 0;
    for (const StepInfo &s : e->steps()) {
      in_place += s.label.find("in place") != std::string::npos;
      onto_copies += s.label.find("onto a copy") != std::string::npos;
    }
    EXPECT_EQ(in_place, want.in_place);
    EXPECT_EQ(onto_copies, want.onto_copies);
    EXPECT_LE(error_against_reference(*e, g, values), kTolerance);
  }
}

} // namespace
} // namespace quarry::runtime::testing
