//===- zoo_test.cc - Each network's structure, shape and evaluation -------===//
#include "quarry/core/evaluate.h"
#include "quarry/core/float_domain.h"
#include "quarry/field/random_field.h"
#include "quarry/models/stats.h"
#include "quarry/models/zoo.h"

#include <gtest/gtest.h>

#include <cmath>

namespace quarry {
namespace {

struct Expected {
  std::string_view name;
  ModelOptions small; ///< options small enough to evaluate quickly
  std::map<std::string, int> ops;
  Shape output;      ///< for `small`
  Shape full_output; ///< at the default size, batch 1
};

const Expected kNetworks[] = {
    {"resnet50",
     {.batch = 1, .size = 8},
     {{"conv2d", 52}, {"ewadd", 16}, {"relu", 16}},
     Shape{1, 2048, 1, 1},
     Shape{1, 2048, 7, 7}},
    {"resnext50",
     {.batch = 1, .size = 32},
     {{"conv2d", 53}, {"pool2d_max", 1}, {"ewadd", 16}, {"relu", 16}},
     Shape{1, 2048, 1, 1},
     Shape{1, 2048, 7, 7}},
    {"nasnet_a",
     {.batch = 1, .size = 4},
     {{"conv2d", 216},
      {"pool2d_avg", 51},
      {"pool2d_max", 7},
      {"ewadd", 90},
      {"concat", 18}},
     Shape{1, 5120, 1, 1},
     Shape{1, 5120, 7, 7}},
    {"nasrnn",
     {.batch = 2, .size = 2},
     {{"matmul", 80},
      {"ewadd", 55},
      {"ewmul", 20},
      {"relu", 10},
      {"sigmoid", 25},
      {"tanh", 40}},
     Shape{2, 512},
     Shape{1, 512}},
    {"bert",
     {.batch = 2, .size = 1},
     {{"matmul", 48}, {"reshape", 32}, {"transpose", 32}, {"softmax", 8}},
     Shape{2, 1024},
     Shape{64, 1024}},
    {"inception_v3",
     {.batch = 1, .size = 75},
     {{"conv2d", 94}, {"pool2d_max", 4}, {"pool2d_avg", 10}, {"concat", 11}},
     Shape{1, 2048, 1, 1},
     Shape{1, 2048, 1, 1}},
};

class Networks : public ::testing::TestWithParam<Expected> {};

TEST_P(Networks, OperatorCountsAndOutputShape) {
  const Expected &e = GetParam();
  const Model m = build_model(e.name, {.weight_values = false});
  EXPECT_TRUE(m.weights.empty());
  EXPECT_EQ(graph_stats(m.graph).op_counts, e.ops);
  ASSERT_EQ(m.graph.outputs().size(), 1u);
  EXPECT_EQ(m.graph.type(m.graph.outputs()[0])->shape, e.full_output);
}

TEST_P(Networks, EvaluatesFiniteAtSmallSize) {
  const Expected &e = GetParam();
  const Model m = build_model(e.name, e.small);
  const auto out =
      evaluate(FloatDomain{}, m.graph, bind_variables(m.graph, m.weights, 7));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape, e.output);
  double norm = 0;
  for (float v : out[0].data) {
    ASSERT_TRUE(std::isfinite(v));
    norm += std::fabs(v);
  }
  EXPECT_GT(norm, 0.0) << "output is all zeros";
}

INSTANTIATE_TEST_SUITE_P(Zoo, Networks, ::testing::ValuesIn(kNetworks),
                         [](const auto &info) {
                           return std::string(info.param.name);
                         });

TEST(Zoo, WeightsAreSeededAndCountedAsParameters) {
  const Model a = build_model("nasrnn", {.seed = 1});
  const Model b = build_model("nasrnn", {.seed = 1});
  const Model c = build_model("nasrnn", {.seed = 2});
  EXPECT_EQ(a.weights, b.weights);
  EXPECT_NE(a.weights, c.weights);
  // 5 steps x 16 matrices [512,512] plus the initial state [1,512].
  const GraphStats s = graph_stats(a.graph);
  EXPECT_EQ(s.parameters, 5 * 16 * 512 * 512 + 512);
  // 80 matmuls of [1,512]x[512,512] dominate the FLOPs.
  EXPECT_GT(s.flops, 80LL * 2 * 512 * 512);
  EXPECT_LT(s.flops, 80LL * 2 * 512 * 512 + 100000);
}

TEST(Zoo, ResNet50FlopsMatchTheBottleneckArithmetic) {
  // First block at 56x56: 1x1 64->64, 3x3 64->64, 1x1 64->256 and the 1x1
  // shortcut 64->256; the whole body is about 7.7 GFLOPs (no stem, no fc).
  const GraphStats s =
      graph_stats(build_model("resnet50", {.weight_values = false}).graph);
  EXPECT_GT(s.flops, 7'000'000'000LL);
  EXPECT_LT(s.flops, 8'500'000'000LL);
}

TEST(Zoo, FloatOnlyOperatorsRefuseTheField) {
  // BERT's softmax is outside the algebra: the field evaluation names it.
  const Model m = build_model("bert", {.size = 1, .weight_values = false});
  try {
    evaluate(PrimeField(1), m.graph, random_field_bindings(m.graph, 1));
    FAIL() << "field evaluation of softmax succeeded";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()),
              "softmax: has no exact semantics; only float evaluation runs it");
  }
}

TEST(Zoo, BadNamesAndSizesAreClearErrors) {
  EXPECT_THROW(build_model("vgg16"), Error);
  EXPECT_THROW(build_model("inception_v3", {.size = 32}), Error);
  EXPECT_THROW(build_model("resnet50", {.batch = 0}), Error);
}

} // namespace
} // namespace quarry
