//===- text_test.cc - Text form: printing, parsing, round trips, errors ---===//
#include "quarry/core/text.h"

#include <gtest/gtest.h>

namespace quarry {
namespace {

std::string error_of(const std::string &text) {
  try {
    parse_graph(text, "g.qg");
  } catch (const Error &e) {
    return e.what();
  }
  return "no error";
}

TEST(Text, PrintsNestedSingleUseValues) {
  Graph g;
  ValueRef x = g.input("x", Shape{1, 4, 5, 5});
  ValueRef w1 = g.weight("w1", Shape{4, 4, 3, 3});
  ValueRef w2 = g.weight("w2", Shape{4, 4, 3, 3});
  ValueRef w = g.add1(OpKind::Concat, make_attrs(OpKind::Concat), {w1, w2});
  ValueRef y = g.add1(OpKind::Conv2D, make_attrs(OpKind::Conv2D), {x, w}, "y");
  g.mark_output(y);
  EXPECT_EQ(print_graph(g),
            "input x: [1,4,5,5]\n"
            "weight w1: [4,4,3,3]\n"
            "weight w2: [4,4,3,3]\n"
            "y = conv2d[s=1,1 pad=same act=none](x, concat[axis=0](w1, w2))\n"
            "output y\n");
  EXPECT_NE(print_graph(g, {.types = true}).find("# [1,8,5,5]"),
            std::string::npos);
}

TEST(Text, RoundTrips) {
  const char *texts[] = {
      "input x: [2,4]\ninput y: [2,4]\nweight w: [4,4]\n"
      "a = matmul[act=relu](ewadd(x, y), w)\n"
      "p, q = split[axis=1](concat[axis=1](a, relu(a)))\n"
      "output q, p, a\n",
      "input x\ninput w\n# a pattern without shapes\n"
      "y = conv2d[s=2,1 pad=valid act=relu](x, enlarge[k=3,3](w))\n"
      "z = pool2d_max[k=3,3 s=1,1 pad=same](y)\noutput z, y\n",
      "input x: [3,3]\ny = matmul(x, const_imm[shape=3,3]())\n"
      "z = transpose[perm=1,0 shuffle=1](y)\noutput z\n",
      "input x: [1,2,3,3]\nweight s: [2]\nweight b: [2]\nweight m: [2]\n"
      "weight v: [2]\ny = batchnorm[eps=0.001](x, s, b, m, v)\noutput y\n",
      // A reshape to a scalar: its shape is the empty list.
      "input x: [1,1]\ny = reshape[shape=](x)\noutput y\n",
      "input x: [1,2,9,9]\nweight w: [2,2,3,3]\n"
      "y = conv2d[act=relu d=2,3](x, w)\noutput y\n",
  };
  for (const char *text : texts) {
    Graph g = parse_graph(text);
    std::string printed = print_graph(g);
    Graph again = parse_graph(printed);
    EXPECT_TRUE(structurally_equal(g, again)) << printed;
    EXPECT_EQ(g.hash(), again.hash());
    EXPECT_EQ(print_graph(again), printed);
    // Without nesting, the same graph.
    Graph flat = parse_graph(print_graph(g, {.inline_single_use = false}));
    EXPECT_TRUE(structurally_equal(g, flat));
  }
}

TEST(Text, ContinuesInsideBrackets) {
  Graph g = parse_graph("input x: [2,2]\ny = ewadd(\n  x,   # first\n  x)\n"
                        "output y");
  EXPECT_EQ(g.num_operators(), 1);
}

TEST(Text, ErrorsNameThePosition) {
  EXPECT_EQ(error_of("input x: [2,2]\ny = relu(z)\n"),
            "g.qg:2:10: undefined value 'z'");
  EXPECT_EQ(error_of("input x: [2,2]\ny = conv3d(x)\n"),
            "g.qg:2:5: unknown operator 'conv3d'");
  EXPECT_EQ(error_of("input x: [2,2]\ny = relu(x\n"),
            "g.qg:3:1: expected ')' after the operands of relu, found end "
            "of input");
  EXPECT_EQ(error_of("input x: [2,2]\ny = matmul[act=gelu](x, x)\n"),
            "g.qg:2:16: matmul: attribute act expects "
            "none|relu|sigmoid|tanh, got 'gelu'");
  EXPECT_EQ(error_of("input x: [2,2]\ny = relu[axis=1](x)\n"),
            "g.qg:2:10: relu: unknown attribute 'axis'");
  EXPECT_EQ(error_of("input x: [2,2]\ny = relu(x, x)\n"),
            "g.qg:2:5: relu: expects 1 operands, got 2");
  EXPECT_EQ(error_of("input x: [2,2]\ny = split[axis=0](concat(x, x))\n"),
            "g.qg:2:5: split has 2 outputs; bind them with 'a, b = "
            "split(...)'");
  EXPECT_EQ(error_of("input x: [2,2]\ninput x: [2]\n"),
            "g.qg:2:7: 'x' is already defined");
  EXPECT_EQ(error_of("input x: [2,2\n"),
            "g.qg:2:1: expected ']' to close the shape, found end of input");
  EXPECT_EQ(error_of("input x: [2,2]\ny = ewadd(x, transpose[perm=1,0](x)) "
                     "extra\n"),
            "g.qg:2:38: expected end of line");
  EXPECT_EQ(error_of("input x: [1,6,5,5]\nweight w: [4,4,3,3]\n"
                     "y = conv2d(x, w)\n"),
            "g.qg:3:5: conv2d: input channels 6 not divisible by weight "
            "channels 4");
  EXPECT_EQ(error_of("input x: [0,2]\n"),
            "g.qg:1:1: input 'x': dimensions must be positive, got [0,2]");
  EXPECT_EQ(error_of("output y\n"), "g.qg:1:8: undefined value 'y'");
}

TEST(Text, ReadsFiles) {
  EXPECT_THROW(read_graph_file("/nonexistent/graph.qg"), Error);
}

} // namespace
} // namespace quarry
