//===- shape_inference_test.cc - Every operator's shape rule --------------===//
#include "quarry/core/text.h"

#include <gtest/gtest.h>

namespace quarry {
namespace {

/// Parses `body` after declaring x; returns the shape of output 0.
Shape out_shape(const std::string &text) {
  Graph g = parse_graph(text);
  const TensorType *t = g.type(g.outputs().at(0));
  if (!t)
    throw std::logic_error("type unknown");
  return t->shape;
}

/// The error message shape inference gives for `text`.
std::string error_of(const std::string &text) {
  try {
    parse_graph(text);
  } catch (const Error &e) {
    return e.what();
  }
  return "no error";
}

// Found by fuzzing tensor files: a file can state dimensions whose product
// no 64-bit count holds.
TEST(ShapeInference, ElementCountsBeyond64BitsAreAnError) {
  const Shape huge{380, 805306367, 26306674687};
  try {
    (void)huge.numel();
    ADD_FAILURE() << "no error";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "shape [380,805306367,26306674687]: more elements "
                           "than a 64-bit count holds");
  }
  EXPECT_THROW((void)huge.strides(), Error);
  EXPECT_EQ((Shape{0, 805306367, 26306674687}.numel()), 0);
}

TEST(ShapeInference, MatMul) {
  EXPECT_EQ(out_shape("input a: [2,3]\ninput b: [3,5]\ny = matmul(a, b)\n"
                      "output y"),
            (Shape{2, 5}));
  EXPECT_EQ(out_shape("input a: [4,2,3]\ninput b: [4,3,5]\n"
                      "y = matmul[act=relu](a, b)\noutput y"),
            (Shape{4, 2, 5}));
  EXPECT_NE(error_of("input a: [2,3]\ninput b: [4,5]\ny = matmul(a, b)")
                .find("matmul: inner dimensions differ: [2,3] times [4,5]"),
            std::string::npos);
  EXPECT_NE(error_of("input a: [3]\ninput b: [3,5]\ny = matmul(a, b)")
                .find("equal rank >= 2"),
            std::string::npos);
}

TEST(ShapeInference, Conv2D) {
  const std::string decl = "input x: [2,4,5,5]\n";
  EXPECT_EQ(out_shape(decl + "weight w: [8,4,3,3]\n"
                             "y = conv2d[s=1,1 pad=same](x, w)\noutput y"),
            (Shape{2, 8, 5, 5}));
  EXPECT_EQ(out_shape(decl + "weight w: [8,4,3,3]\n"
                             "y = conv2d[s=2,2 pad=same](x, w)\noutput y"),
            (Shape{2, 8, 3, 3}));
  EXPECT_EQ(out_shape(decl + "weight w: [8,4,1,3]\n"
                             "y = conv2d[s=1,2 pad=valid](x, w)\noutput y"),
            (Shape{2, 8, 5, 2}));
  // Grouped: 4 input channels, weight has 2 per group -> 2 groups.
  EXPECT_EQ(out_shape(decl + "weight w: [6,2,3,3]\n"
                             "y = conv2d(x, w)\noutput y"),
            (Shape{2, 6, 5, 5}));
  EXPECT_NE(error_of("input x: [1,6,5,5]\nweight w: [4,4,3,3]\n"
                     "y = conv2d(x, w)")
                .find("conv2d: input channels 6 not divisible by weight "
                      "channels 4"),
            std::string::npos);
  EXPECT_NE(error_of(decl + "weight w: [5,2,3,3]\ny = conv2d(x, w)")
                .find("output channels 5 not divisible by groups 2"),
            std::string::npos);
  EXPECT_NE(error_of("input x: [1,4,2,2]\nweight w: [4,4,3,3]\n"
                     "y = conv2d[pad=valid](x, w)")
                .find("smaller than kernel 3 with valid padding"),
            std::string::npos);
  EXPECT_NE(error_of("input x: [4,5]\nweight w: [4,4,3,3]\ny = conv2d(x, w)")
                .find("input must have rank 4"),
            std::string::npos);
}

TEST(ShapeInference, Pooling) {
  EXPECT_EQ(out_shape("input x: [1,3,7,7]\n"
                      "y = pool2d_avg[k=3,3 s=2,2 pad=same](x)\noutput y"),
            (Shape{1, 3, 4, 4}));
  EXPECT_EQ(out_shape("input x: [1,3,7,7]\n"
                      "y = pool2d_max[k=3,3 s=2,2 pad=valid](x)\noutput y"),
            (Shape{1, 3, 3, 3}));
  EXPECT_NE(error_of("input x: [3,7,7]\ny = pool2d_max(x)")
                .find("pool2d_max: input must have rank 4"),
            std::string::npos);
}

TEST(ShapeInference, ElementwiseAndUnary) {
  for (const char *op : {"ewadd", "ewmul"}) {
    EXPECT_EQ(out_shape(std::string("input a: [2,3]\ninput b: [2,3]\ny = ") +
                        op + "(a, b)\noutput y"),
              (Shape{2, 3}));
    EXPECT_NE(error_of(std::string("input a: [2,3]\ninput b: [3,2]\ny = ") +
                       op + "(a, b)")
                  .find("shapes differ: [2,3] and [3,2]"),
              std::string::npos);
  }
  for (const char *op : {"relu", "sigmoid", "tanh"})
    EXPECT_EQ(
        out_shape(std::string("input a: [2,3,4]\ny = ") + op + "(a)\noutput y"),
        (Shape{2, 3, 4}));
  EXPECT_EQ(out_shape("input a: [2,3]\ninput s: []\n"
                      "y = scalar_mul(a, s)\noutput y"),
            (Shape{2, 3}));
  EXPECT_NE(error_of("input a: [2,3]\ninput s: [1]\ny = scalar_mul(a, s)")
                .find("must be a scalar"),
            std::string::npos);
}

TEST(ShapeInference, ConcatSplit) {
  EXPECT_EQ(out_shape("input a: [2,3]\ninput b: [2,5]\ninput c: [2,1]\n"
                      "y = concat[axis=1](a, b, c)\noutput y"),
            (Shape{2, 9}));
  EXPECT_NE(error_of("input a: [2,3]\ninput b: [3,3]\n"
                     "y = concat[axis=1](a, b)")
                .find("operand 1 shape [3,3] does not match [2,3]"),
            std::string::npos);
  EXPECT_NE(error_of("input a: [2,3]\ninput b: [2,3]\n"
                     "y = concat[axis=2](a, b)")
                .find("axis 2 out of range"),
            std::string::npos);
  // Split undoes the recorded boundary; nested concats peel one at a time.
  Graph g = parse_graph("input a: [2,3]\ninput b: [2,5]\ninput c: [2,1]\n"
                        "p, q = split[axis=1](concat[axis=1](a, b, c))\n"
                        "r, s = split[axis=1](p)\noutput p, q, r, s");
  EXPECT_EQ(g.type(g.outputs()[0])->shape, (Shape{2, 8}));
  EXPECT_EQ(g.type(g.outputs()[1])->shape, (Shape{2, 1}));
  EXPECT_EQ(g.type(g.outputs()[2])->shape, (Shape{2, 3}));
  EXPECT_EQ(g.type(g.outputs()[3])->shape, (Shape{2, 5}));
  EXPECT_EQ(out_shape("input a: [6,2]\nx, y, z = split[axis=0 sizes=1,2,3](a)"
                      "\noutput z"),
            (Shape{3, 2}));
  EXPECT_NE(error_of("input a: [6,2]\nx, y = split[axis=0](a)")
                .find("no concat boundary recorded on axis 0"),
            std::string::npos);
  EXPECT_NE(error_of("input a: [6,2]\nx, y = split[axis=0 sizes=2,3](a)")
                .find("adding up to 6"),
            std::string::npos);
}

TEST(ShapeInference, BoundariesFollowElementwiseAndMatmul) {
  // The boundary survives relu and the row axis of matmul, so split works.
  Graph g = parse_graph("input a: [2,4]\ninput b: [3,4]\ninput w: [4,4]\n"
                        "p, q = split[axis=0](matmul(relu(concat[axis=0](a, "
                        "b)), w))\noutput p, q");
  EXPECT_EQ(g.type(g.outputs()[0])->shape, (Shape{2, 4}));
  EXPECT_EQ(g.type(g.outputs()[1])->shape, (Shape{3, 4}));
  // ewadd keeps a boundary only when both operands agree.
  EXPECT_NE(error_of("input a: [2,4]\ninput b: [3,4]\ninput c: [5,4]\n"
                     "p, q = split[axis=0](ewadd(concat[axis=0](a, b), c))")
                .find("no concat boundary"),
            std::string::npos);
}

TEST(ShapeInference, TransposeEnlargeReshapeBatchnorm) {
  EXPECT_EQ(out_shape("input a: [2,3,4]\ny = transpose[perm=2,0,1](a)\n"
                      "output y"),
            (Shape{4, 2, 3}));
  EXPECT_NE(error_of("input a: [2,3]\ny = transpose[perm=0,0](a)")
                .find("not a permutation"),
            std::string::npos);
  EXPECT_EQ(out_shape("weight w: [4,4,1,3]\ny = enlarge[k=3,3](w)\noutput y"),
            (Shape{4, 4, 3, 3}));
  EXPECT_NE(error_of("weight w: [4,4,5,5]\ny = enlarge[k=3,3](w)")
                .find("larger than target 3x3"),
            std::string::npos);
  EXPECT_EQ(out_shape("input a: [2,3,4]\ny = reshape[shape=6,-1](a)\n"
                      "output y"),
            (Shape{6, 4}));
  EXPECT_NE(error_of("input a: [2,3,4]\ny = reshape[shape=5,-1](a)")
                .find("cannot reshape [2,3,4]"),
            std::string::npos);
  EXPECT_EQ(out_shape("input x: [2,3,4,4]\nweight s: [3]\nweight b: [3]\n"
                      "weight m: [3]\nweight v: [3]\n"
                      "y = batchnorm(x, s, b, m, v)\noutput y"),
            (Shape{2, 3, 4, 4}));
  EXPECT_NE(error_of("input x: [2,3,4,4]\nweight s: [4]\nweight b: [3]\n"
                     "weight m: [3]\nweight v: [3]\n"
                     "y = batchnorm(x, s, b, m, v)")
                .find("scale must be [3], got [4]"),
            std::string::npos);
}

TEST(ShapeInference, Constants) {
  EXPECT_EQ(out_shape("y = const_pool[k=3,3 shape=4,1,3,3]()\noutput y"),
            (Shape{4, 1, 3, 3}));
  EXPECT_EQ(out_shape("y = const_imm[shape=3,3]()\noutput y"), (Shape{3, 3}));
  EXPECT_NE(error_of("y = const_imm[shape=3,2]()").find("must be square"),
            std::string::npos);
  EXPECT_NE(error_of("y = const_iconv[k=3,3 shape=4,1,1,3]()")
                .find("must be [co,ci,3,3]"),
            std::string::npos);
  EXPECT_NE(error_of("y = const_one[shape=2,-1]()")
                .find("const_one: shape dimensions must be positive"),
            std::string::npos);
  // In a pattern, a constant without a shape has an unknown type.
  Graph g = parse_graph("y = const_one()\noutput y");
  EXPECT_EQ(g.type(g.outputs()[0]), nullptr);
}

TEST(ShapeInference, PatternsWithoutShapesSkipInference) {
  Graph g = parse_graph("input x\ninput w\ny = conv2d(x, w)\noutput y");
  EXPECT_EQ(g.type(g.outputs()[0]), nullptr);
}

} // namespace
} // namespace quarry
