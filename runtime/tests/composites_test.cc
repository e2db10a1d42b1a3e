//===- composites_test.cc - GELU and SiLU written out, run as one ---------===//
#include "composites.h"

#include "quarry/core/text.h"
#include "quarry/runtime/backend.h"
#include "quarry/runtime/cpu_backend.h"
#include "quarry/runtime/reference_backend.h"
#include "quarry/runtime/run_inputs.h"

#include <gtest/gtest.h>

#include <cmath>

namespace quarry::runtime {
namespace {

/// The constants exporters write, by name: sqrt 2 (r2), 1 / sqrt 2 (ir2),
/// 1 (one), 0.5 (half), 2 (two), and one that is none of them (odd).
const char *const kConstants = "weight r2: []\nweight ir2: []\n"
                               "weight one: []\nweight half: []\n"
                               "weight two: []\nweight odd: []\n"
                               "weight three: []\nweight six: []\n"
                               "weight sixth: []\n";

Bindings<float> values_of(const Graph &g) {
  Bindings<float> b = random_run_bindings(g, 11);
  const std::pair<const char *, float> fixed[] = {
      {"r2", std::sqrt(2.0f)}, {"ir2", 1 / std::sqrt(2.0f)},
      {"one", 1.0f},           {"half", 0.5f},
      {"two", 2.0f},           {"odd", 1.5f},
      {"three", 3.0f},         {"six", 6.0f},
      {"sixth", 1 / 6.0f}};
  for (const auto &[name, v] : fixed)
    b.insert_or_assign(name, Tensor<float>(Shape{}, v));
  return b;
}

/// The composites of `body` over x: [2,3,4] (and weight w: [4,4], the
/// constants), as "fn:first..last" per composite.
std::vector<std::string> found(const std::string &body) {
  const Graph g = parse_graph("input x: [2,3,4]\nweight w: [4,4]\n" +
                              std::string(kConstants) + body);
  const Plan p = make_plan(g, values_of(g), "cpu", [](OpKind) { return true; });
  std::vector<std::string> out;
  for (const auto &[first, c] : find_composites(g, p))
    out.push_back(
        (c.pointwise()
             ? std::string(
                   ops::kPointwiseNames[static_cast<int>(*c.pointwise())])
             : std::string(op_name(c.as.kind))) +
        ":" + std::to_string(c.nodes.size()) +
        (c.reads_x_alone ? ":alone" : ""));
  return out;
}

using Found = std::vector<std::string>;

TEST(Composites, GeluInTheFormsExportersWriteIt) {
  // nn.GELU through torch.onnx: Div, Erf, Add, Mul(x, .), Mul(., 0.5).
  EXPECT_EQ(found("d = broadcast[fn=div](x, r2)\ne = pointwise[fn=erf](d)\n"
                  "a = broadcast[fn=add](e, one)\nm = ewmul(x, a)\n"
                  "y = broadcast[fn=mul](m, half)\noutput y\n"),
            Found{"gelu:5:alone"});
  // x * 0.5 first, a product by 1 / sqrt 2, operands either way round.
  EXPECT_EQ(found("h = broadcast[fn=mul](half, x)\n"
                  "d = broadcast[fn=mul](ir2, x)\ne = pointwise[fn=erf](d)\n"
                  "a = broadcast[fn=add](one, e)\ny = ewmul(a, h)\n"
                  "output y\n"),
            Found{"gelu:5:alone"});
  // A final division by 2; x read elsewhere too.
  EXPECT_EQ(found("d = broadcast[fn=div](x, r2)\ne = pointwise[fn=erf](d)\n"
                  "a = broadcast[fn=add](e, one)\nm = ewmul(a, x)\n"
                  "y = broadcast[fn=div](m, two)\nz = relu(x)\n"
                  "output y, z\n"),
            Found{"gelu:5"});
}

TEST(Composites, SiluEitherWayRound) {
  EXPECT_EQ(found("s = sigmoid(x)\ny = ewmul(x, s)\noutput y\n"),
            Found{"silu:2:alone"});
  EXPECT_EQ(found("s = sigmoid(x)\ny = broadcast[fn=mul](s, x)\noutput y\n"),
            Found{"silu:2:alone"});
}

TEST(Composites, HardSwishAsClipOrHardSigmoid) {
  const std::string clip = "a = broadcast[fn=add](x, three)\n"
                           "c = pointwise[fn=clip alpha=0 beta=6](a)\n";
  EXPECT_EQ(found(clip + "m = ewmul(x, c)\ny = broadcast[fn=div](m, six)\n"
                         "output y\n"),
            Found{"hard_swish:4:alone"});
  EXPECT_EQ(found(clip + "d = broadcast[fn=mul](c, sixth)\n"
                         "y = ewmul(d, x)\noutput y\n"),
            Found{"hard_swish:4:alone"});
  EXPECT_EQ(
      found("h = pointwise[fn=hard_sigmoid alpha=0.16666667 beta=0.5](x)\n"
            "y = ewmul(x, h)\noutput y\n"),
      Found{"hard_swish:2:alone"});
  // ONNX's default hard sigmoid (alpha 0.2) is another function.
  EXPECT_EQ(found("h = pointwise[fn=hard_sigmoid alpha=0.2 beta=0.5](x)\n"
                  "y = ewmul(x, h)\noutput y\n"),
            Found{});
  // Clipped at another bound.
  EXPECT_EQ(found("a = broadcast[fn=add](x, three)\n"
                  "c = pointwise[fn=clip alpha=0 beta=5](a)\n"
                  "m = ewmul(x, c)\ny = broadcast[fn=div](m, six)\n"
                  "output y\n"),
            Found{});
}

/// A LayerNormalization as exporters wrote it before opset 17, over x's
/// last axis (weights lg, lb: [4]), eps 0.5; `square` is d^2 written out.
std::string layer_norm_of_x(const std::string &square, bool shift) {
  return "weight lg: [4]\nweight lb: [4]\nm = reduce_mean[axes=-1](x)\n"
         "d = broadcast[fn=sub](x, m)\np = " +
         square +
         "\nv = reduce_mean[axes=-1](p)\na = broadcast[fn=add](v, half)\n"
         "s = pointwise[fn=sqrt](a)\nq = broadcast[fn=div](d, s)\n" +
         (shift ? "t = broadcast[fn=mul](q, lg)\ny = broadcast[fn=add](t, lb)\n"
                : "y = broadcast[fn=mul](lg, q)\n") +
         "output y\n";
}

TEST(Composites, LayerNormWrittenOut) {
  EXPECT_EQ(found(layer_norm_of_x("broadcast[fn=pow](d, two)", true)),
            Found{"layer_norm:9:alone"});
  EXPECT_EQ(found(layer_norm_of_x("ewmul(d, d)", false)),
            Found{"layer_norm:8:alone"});
  // A mean over another axis is another normalization.
  EXPECT_EQ(found("weight g: [4]\nm = reduce_mean[axes=1](x)\n"
                  "d = broadcast[fn=sub](x, m)\np = ewmul(d, d)\n"
                  "v = reduce_mean[axes=1](p)\na = broadcast[fn=add](v, half)\n"
                  "s = pointwise[fn=sqrt](a)\nq = broadcast[fn=div](d, s)\n"
                  "y = broadcast[fn=mul](q, g)\noutput y\n"),
            Found{});
}

TEST(Composites, NotWhereTheArithmeticDiffers) {
  const std::string tail = "e = pointwise[fn=erf](d)\n"
                           "a = broadcast[fn=add](e, one)\nm = ewmul(x, a)\n"
                           "y = broadcast[fn=mul](m, half)\n";
  // Another constant.
  EXPECT_EQ(found("d = broadcast[fn=div](x, odd)\n" + tail + "output y\n"),
            Found{});
  // An inner value read elsewhere, or a graph output.
  EXPECT_EQ(found("d = broadcast[fn=div](x, r2)\n" + tail +
                  "z = relu(e)\noutput y, z\n"),
            Found{});
  EXPECT_EQ(found("d = broadcast[fn=div](x, r2)\n" + tail + "output y, m\n"),
            Found{});
  // The sigmoid of one value times another.
  EXPECT_EQ(found("s = sigmoid(x)\ny = ewmul(relu(x), s)\noutput y\n"),
            Found{});
}

std::unique_ptr<Executable> cpu_run(const Graph &g, const Bindings<float> &v,
                                    bool fuse) {
  BackendOptions o;
  o.fuse = fuse;
  return make_cpu_backend(o)->prepare(g, v);
}

TEST(Composites, TheCpuRunsThemAsOneEltwiseAloneOrAfterAnAnchor) {
  struct Want {
    std::string body;
    int fused_nodes;
    std::string label;
  };
  const std::string gelu_of_x =
      "d = broadcast[fn=div](x, r2)\ne = pointwise[fn=erf](d)\n"
      "a = broadcast[fn=add](e, one)\nm = ewmul(x, a)\n"
      "y = broadcast[fn=mul](m, half)\n";
  const Want cases[] = {
      // Alone, after a softmax: one step of five nodes.
      {"x = softmax[axis=2](u)\n" + gelu_of_x + "output y\n", 4, " as gelu"},
      // After a product, its bias and a reshape: one kernel.
      {"x = reshape[shape=2,3,4](broadcast[fn=add](matmul(reshape[shape=6,4]"
       "(u), w), b))\n" +
           gelu_of_x + "output y\n",
       7, "+gelu"},
      // A layer norm written out, alone: one step of nine nodes.
      {"x = relu(u)\n" + layer_norm_of_x("broadcast[fn=pow](d, two)", true), 8,
       " as layer_norm"},
      // HardSwish after a convolution.
      {"x = conv2d(reshape[shape=1,2,3,4](u), k)\n"
       "a = broadcast[fn=add](x, three)\n"
       "c = pointwise[fn=clip alpha=0 beta=6](a)\nm = ewmul(x, c)\n"
       "y = broadcast[fn=div](m, six)\noutput y\n",
       4, "+hard_swish"},
      // SiLU after a convolution.
      {"x = conv2d(reshape[shape=1,2,3,4](u), k)\ns = sigmoid(x)\n"
       "y = ewmul(x, s)\noutput y\n",
       2, "+silu"},
  };
  for (const Want &want : cases) {
    SCOPED_TRACE(want.body);
    const Graph g =
        parse_graph("input u: [2,3,4]\nweight w: [4,4]\nweight b: [4]\n"
                    "weight k: [2,2,1,1]\n" +
                    std::string(kConstants) + want.body);
    const Bindings<float> v = values_of(g);
    auto e = cpu_run(g, v, true);
    const auto steps = e->steps();
    EXPECT_EQ(count_steps(steps).fused_nodes, want.fused_nodes);
    bool labelled = false;
    for (const StepInfo &s : steps)
      labelled = labelled || s.label.find(want.label) != std::string::npos;
    EXPECT_TRUE(labelled) << "no step says '" << want.label << "'";
    auto ref = make_reference_backend();
    const auto expected = run_once(*ref->prepare(g, v), v);
    EXPECT_LE(max_relative_error(run_once(*e, v), expected), 2e-5);
    // Unfused, each node runs alone.
    EXPECT_EQ(count_steps(cpu_run(g, v, false)->steps()).fused_nodes, 0);
  }
}

} // namespace
} // namespace quarry::runtime
