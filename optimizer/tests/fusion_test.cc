//===- fusion_test.cc - Hand-written fusions and constant folding ---------===//
#include "test_util.h"

#include "quarry/optimizer/constant_fold.h"
#include "quarry/rewrite/fusions.h"
#include "quarry/runtime/plan.h"

namespace quarry::opt::test {
namespace {

TEST(Fusion, ActivationFoldsIntoConvolutionAndMatmul) {
  const Graph g = parse_graph("input x: [1,3,6,6]\nweight w: [4,3,3,3]\n"
                              "input a: [2,5]\nweight b: [5,3]\n"
                              "y = relu(conv2d(x, w))\nz = tanh(matmul(a, b))\n"
                              "output y, z\n");
  const auto out = rewrite::fuse_activation(rewrite::HostInfo(g));
  ASSERT_EQ(out.size(), 2u);
  for (const Graph &h : out) {
    EXPECT_EQ(h.num_operators(), 3);
    EXPECT_LT(error_between(g, h), kTolerance);
  }
}

TEST(Fusion, TheFusedOperatorTakesTheNameOfTheValueItComputes) {
  // An imported model's names for values (the text form binds them) stay
  // on the values, whatever computes them now.
  const Graph g = parse_graph("input x: [1,3,6,6]\nweight w: [4,3,3,3]\n"
                              "c = conv2d(x, w)\nv_107 = relu(c)\n"
                              "output v_107\n");
  const auto out = rewrite::fuse_activation(rewrite::HostInfo(g));
  ASSERT_EQ(out.size(), 1u);
  const Graph &h = out[0];
  ASSERT_EQ(h.num_operators(), 1);
  EXPECT_EQ(h.node(h.outputs()[0].node).name, "v_107");
  EXPECT_NE(print_graph(h).find("v_107 = conv2d[s=1,1 pad=same act=relu]"),
            std::string::npos)
      << print_graph(h);
}

TEST(Fusion, ActivationStaysWhenTheRawResultIsUsedElsewhere) {
  const Graph g = parse_graph("input x: [1,3,6,6]\nweight w: [4,3,3,3]\n"
                              "c = conv2d(x, w)\ny = relu(c)\n"
                              "output y, c\n");
  EXPECT_TRUE(rewrite::fuse_activation(rewrite::HostInfo(g)).empty());
}

TEST(Fusion, ConvolutionsOfOneInputMerge) {
  const Graph g = parse_graph("input x: [1,4,6,6]\nweight p: [3,4,3,3]\n"
                              "weight q: [3,4,3,3]\n"
                              "y = concat[axis=1](conv2d[act=relu](x, p), "
                              "conv2d[act=relu](x, q))\noutput y\n");
  const auto out = rewrite::merge_conv(rewrite::HostInfo(g));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_LT(error_between(g, out[0]), kTolerance);
}

TEST(Fusion, ConvolutionsOfOneInputMergeWithDifferentWidths) {
  const Graph g = parse_graph("input x: [1,4,6,6]\nweight p: [3,4,1,1]\n"
                              "weight q: [5,4,1,1]\n"
                              "y = conv2d[act=relu](x, p)\n"
                              "z = conv2d[act=relu](x, q)\noutput y, z\n");
  const auto out = rewrite::merge_conv(rewrite::HostInfo(g));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_LT(error_between(g, out[0]), kTolerance);
}

TEST(Fusion, GroupedConvolutionsOfOneInputAreNotMerged) {
  // Concatenated depthwise kernels would mix the groups up.
  const Graph g = parse_graph("input x: [1,4,6,6]\nweight p: [4,1,3,3]\n"
                              "weight q: [4,1,3,3]\n"
                              "y = conv2d(x, p)\nz = conv2d(x, q)\n"
                              "output y, z\n");
  EXPECT_TRUE(rewrite::merge_conv(rewrite::HostInfo(g)).empty());
}

TEST(Fusion, ConvolutionsOfTwoInputsBecomeOneGroupedConvolution) {
  const Graph g = parse_graph("input x: [1,4,6,6]\ninput z: [1,4,6,6]\n"
                              "weight p: [6,2,3,3]\nweight q: [6,2,3,3]\n"
                              "y = ewadd(conv2d(x, p), conv2d(z, q))\n"
                              "output y\n");
  const auto out = rewrite::merge_conv(rewrite::HostInfo(g));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_LT(error_between(g, out[0]), kTolerance);
  // The merged convolution reads 8 channels with 2-channel kernels.
  bool grouped = false;
  for (const Node &n : out[0].nodes())
    if (n.kind == OpKind::Conv2D)
      grouped = out[0].type(n.inputs[0])->shape[1] == 8;
  EXPECT_TRUE(grouped);
}

TEST(Fusion, DependentConvolutionsAreNotMerged) {
  // The second reads the first's result: merging would be a cycle.
  const Graph g = parse_graph("input x: [1,4,6,6]\nweight p: [4,4,3,3]\n"
                              "weight q: [4,4,3,3]\n"
                              "y = conv2d(relu(conv2d(x, p)), q)\noutput y\n");
  EXPECT_TRUE(rewrite::merge_conv(rewrite::HostInfo(g)).empty());
}

TEST(ConstantFold, WeightOnlySubgraphsBecomeWeights) {
  const Graph g = parse_graph(
      "input x: [1,4,6,6]\nweight p: [3,4,1,1]\nweight q: [3,4,3,3]\n"
      "y = conv2d(x, concat[axis=0](enlarge[k=3,3](p), q))\n"
      "z = matmul(reshape[shape=4,36](x), const_imm[shape=36,36]())\n"
      "output y, z\n");
  const Model before = complete_weights(Model{g, {}}, 7);
  const Model after = fold_constants(before);
  EXPECT_EQ(after.graph.num_operators(), 3); // conv2d, reshape, matmul
  const auto fixed = after.graph.static_nodes();
  for (int32_t id = 0; id < after.graph.num_nodes(); ++id)
    EXPECT_TRUE(after.graph.node(id).is_variable() || !fixed[id]);
  EXPECT_LT(output_error(before, after, 7), kTolerance);
}

} // namespace
} // namespace quarry::opt::test
