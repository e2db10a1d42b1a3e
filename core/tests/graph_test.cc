//===- graph_test.cc - Construction, hashing, structural equality ---------===//
#include "quarry/core/text.h"

#include <gtest/gtest.h>

namespace quarry {
namespace {

TEST(Graph, RejectsBadConstruction) {
  Graph g;
  ValueRef x = g.input("x", Shape{2, 2});
  EXPECT_THROW(g.input("x"), Error);
  EXPECT_THROW(g.add1(OpKind::Relu, {x, x}), Error);
  EXPECT_THROW(g.add1(OpKind::Relu, {ValueRef{7, 0}}), Error);
  EXPECT_THROW(g.add1(OpKind::Relu, {ValueRef{0, 1}}), Error);
  EXPECT_THROW(make_attrs(OpKind::Conv2D, {{"s", std::vector<int64_t>{1}}}),
               Error);
  EXPECT_THROW(make_attrs(OpKind::Conv2D, {{"stride", int64_t{1}}}), Error);
  // Multi-output operators cannot be added as one value.
  EXPECT_THROW(g.add1(OpKind::Split, make_attrs(OpKind::Split),
                      {g.add1(OpKind::Concat, {x, x})}),
               Error);
}

TEST(Graph, TruncateTakesBackLaterNodes) {
  Graph g;
  ValueRef x = g.input("x", Shape{2});
  g.mark_output(g.add1(OpKind::Relu, {x}));
  g.weight("w", Shape{2});
  g.add1(OpKind::Tanh, {x});
  g.truncate(2);
  EXPECT_EQ(g.num_nodes(), 2);
  EXPECT_EQ(g.find_variable("w"), -1);
  g.weight("w", Shape{2});            // the name is free again
  EXPECT_THROW(g.truncate(1), Error); // would drop the output
  EXPECT_THROW(g.truncate(9), Error);
}

TEST(Graph, OpaqueOperatorsKeepTheirShapesAndNeverEvaluate) {
  Graph g = parse_graph("input x: [2,3]\n"
                        "a, b = opaque[id=4 shapes=2,3,2,0 types=1,7](x)\n"
                        "r = relu(a)\noutput r\noutput b");
  const Node &n = g.node(g.outputs()[1].node);
  EXPECT_EQ(n.kind, OpKind::Opaque);
  EXPECT_EQ(n.types[0].shape, (Shape{3, 2}));
  EXPECT_EQ(n.types[1].shape, Shape{});
  EXPECT_TRUE(op_info(OpKind::Opaque).traits.uninterpreted);
  EXPECT_EQ(parse_graph(print_graph(g)).hash(), g.hash());
  // Shapes and types must agree.
  EXPECT_THROW(parse_graph("input x: [2]\n"
                           "a = opaque[id=1 shapes=1,2,1,2 types=1](x)\n"
                           "output a"),
               Error);
  EXPECT_THROW(parse_graph("input x: [2]\n"
                           "a = opaque[id=1 shapes=3,2 types=1](x)\n"
                           "output a"),
               Error);
}

TEST(Graph, HashIgnoresOrderAndValueNames) {
  Graph a = parse_graph("input x: [2,2]\ninput y: [2,2]\n"
                        "p = relu(x)\nq = relu(y)\nr = ewadd(p, q)\noutput r");
  Graph b = parse_graph("input y: [2,2]\ninput x: [2,2]\n"
                        "v = relu(y)\nu = relu(x)\nw = ewadd(u, v)\noutput w");
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_TRUE(structurally_equal(a, b));
}

TEST(Graph, HashCoversUnusedVariables) {
  Graph a = parse_graph("input x: [2]\ninput y: [2]\nr = relu(x)\noutput r");
  Graph b = parse_graph("input x: [2]\ninput y: [3]\nr = relu(x)\noutput r");
  Graph c = parse_graph("input x: [2]\nweight y: [2]\nr = relu(x)\noutput r");
  EXPECT_NE(a.hash(), b.hash());
  EXPECT_NE(a.hash(), c.hash());
  EXPECT_FALSE(structurally_equal(a, b));
  EXPECT_FALSE(structurally_equal(a, c));
}

TEST(Graph, DistinguishesDifferentComputations) {
  const char *base = "input x: [2,2]\ninput y: [2,2]\n";
  Graph a = parse_graph(std::string(base) + "r = ewadd(x, y)\noutput r");
  Graph swapped = parse_graph(std::string(base) + "r = ewadd(y, x)\noutput r");
  Graph other = parse_graph(std::string(base) + "r = ewmul(x, y)\noutput r");
  Graph attr =
      parse_graph(std::string(base) + "r = matmul[act=relu](x, y)\noutput r");
  Graph plain = parse_graph(std::string(base) + "r = matmul(x, y)\noutput r");
  EXPECT_FALSE(structurally_equal(a, swapped));
  EXPECT_NE(a.hash(), swapped.hash());
  EXPECT_FALSE(structurally_equal(a, other));
  EXPECT_NE(a.hash(), other.hash());
  EXPECT_FALSE(structurally_equal(attr, plain));
  EXPECT_NE(attr.hash(), plain.hash());
}

TEST(Graph, SharingMatters) {
  // relu(x) computed once and used twice vs computed twice: same values,
  // different graphs (the optimizer's costs differ).
  Graph shared = parse_graph("input x: [2]\nr = relu(x)\ny = ewadd(r, r)\n"
                             "output y");
  Graph twice = parse_graph("input x: [2]\ny = ewadd(relu(x), relu(x))\n"
                            "output y");
  EXPECT_FALSE(structurally_equal(shared, twice));
}

TEST(Graph, LivenessAndUses) {
  Graph g = parse_graph("input x: [2]\ndead = relu(x)\ny = tanh(x)\noutput y");
  auto live = g.live_nodes();
  EXPECT_TRUE(live[0]);
  EXPECT_FALSE(live[1]);
  EXPECT_TRUE(live[2]);
  EXPECT_EQ(g.use_counts()[0], 2);
  EXPECT_EQ(g.num_operators(), 2);
}

} // namespace
} // namespace quarry
