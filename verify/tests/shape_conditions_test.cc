//===- shape_conditions_test.cc - What a shapes clause states -------------===//
#include "quarry/verify/shape_conditions.h"

#include "verify_test_util.h"

#include <gtest/gtest.h>

namespace quarry::verify {
namespace {

using testing::error_of;
using testing::taso_axioms;

std::vector<std::string> conditions(const AxiomFile &f,
                                    const std::string &axiom) {
  const Axiom *a = f.find_axiom(axiom);
  EXPECT_NE(a, nullptr) << axiom;
  std::vector<std::string> out;
  if (a)
    for (const DimCondition &c : a->shape_conditions)
      out.push_back(print_condition(f, c));
  return out;
}

using Strings = std::vector<std::string>;

TEST(ShapeConditions, ConstantsTakeTheirDimensionsFromTheClause) {
  const AxiomFile &f = taso_axioms();
  // As many output channels as x has channels, and one input channel:
  // without them a grouped convolution would equal average pooling.
  EXPECT_EQ(conditions(f, "const_pool_conv"),
            (Strings{"dim(const_pool(k), 0) = dim(x, 1)",
                     "dim(const_pool(k), 1) = 1"}));
  EXPECT_EQ(conditions(f, "const_iconv_identity"),
            (Strings{"dim(const_iconv(k), 0) = dim(const_iconv(k), 1)",
                     "dim(x, 1) = dim(const_iconv(k), 0)"}));
  EXPECT_EQ(
      conditions(f, "iconv_pool"),
      (Strings{"dim(const_iconv(k), 0) = dim(const_pool(k), 0)",
               "dim(const_iconv(k), 1) = 1", "dim(const_pool(k), 1) = 1"}));
}

TEST(ShapeConditions, TiesThatTypingForcesStateNothing) {
  const AxiomFile &f = taso_axioms();
  // ewadd's operands agree, matmul's inner dimensions and const_imm's two
  // are equal, whatever the clause says.
  for (const char *a :
       {"ewadd_comm", "ew_distrib", "matmul_assoc", "const_imm_identity",
        "const_one_identity", "concat_geometry", "transpose_const_imm"})
    EXPECT_EQ(conditions(f, a), Strings{}) << a;
  // A `where` already states its ties; grouped shapes state none.
  for (const char *a : {"conv_concat_sum", "conv_concat_weights",
                        "conv_grouped_merge", "relu_conv", "enlarge_conv"})
    EXPECT_EQ(conditions(f, a), Strings{}) << a;
}

TEST(ShapeConditions, AnUngroupedClauseStatesTheChannelTie) {
  const AxiomFile f =
      parse_axioms("op conv2d[s, pad, act](x, w)\nop relu(x)\n"
                   "axiom relu_conv: forall s p x y. relu(conv2d(s, p, none, "
                   "x, y)) = conv2d(s, p, relu, x, y)\n"
                   "  shapes x: [n, c, h, v], y: [co, c, kh, kw]\n"
                   "  values s in {[1,1]}, p in {same}, n c h v co in 1..3, "
                   "kh kw in {1, 3}\n",
                   "t.axioms");
  EXPECT_EQ(conditions(f, "relu_conv"), Strings{"dim(x, 1) = dim(y, 1)"});
}

TEST(ShapeConditions, TheProverConditionsOfAnInstance) {
  const AxiomFile &f = taso_axioms();
  const Axiom &a = *f.find_axiom("const_pool_conv");
  const Assignment v{{"s", {1, 1}}, {"p", {0}}, {"k", {3, 3}}, {"n", {1}},
                     {"c", {2}},    {"h", {3}}, {"v", {3}}};
  EXPECT_TRUE(prover_conditions_hold(a, v, {}));
  EXPECT_FALSE(prover_conditions_hold(a, v, {{{"const_pool", 0}, 4}}));
  EXPECT_FALSE(prover_conditions_hold(a, v, {{{"const_pool", 1}, 2}}));
  DimRef x1;
  x1.tensor.name = "x";
  x1.index = 1;
  EXPECT_EQ(dim_value(a, v, {}, x1), 2);
  EXPECT_EQ(dim_value(a, v, {{{"x", 1}, 4}}, x1), 4);
}

TEST(ShapeConditions, BadShapesClausesAreOneLineAtTheAxiom) {
  auto err = [](const std::string &body) {
    return error_of([&] {
      parse_axioms("op ewadd(x, y)\nop relu(x)\nop const_one() ignore shape\n" +
                       body,
                   "s.axioms");
    });
  };
  EXPECT_EQ(err("axiom a: forall x y. ewadd(x, y) = ewadd(y, x)\n"
                "  shapes x: [a], z: [a]\n  values a in 1..2\n"),
            "s.axioms:5:18: 'z' is not a tensor variable or operator of a");
  EXPECT_EQ(err("axiom a: forall x. relu(x) = x\n"
                "  shapes x: [a], const_one: [a]\n  values a in 1..2\n"),
            "s.axioms:5:18: 'const_one' is not a tensor variable or operator "
            "of a");
  EXPECT_EQ(err("axiom a: forall x y. ewadd(x, y) = ewadd(y, x)\n"
                "  shapes x: [a], y: [a], x: [a]\n  values a in 1..2\n"),
            "s.axioms:5:26: a: 'x' has two shapes");
  EXPECT_EQ(err("axiom a: forall x y. ewadd(x, y) = ewadd(y, x)\n"
                "  shapes x: [1, a], y: [2, a]\n  values a in 1..2\n"),
            "s.axioms:4:7: a: no shape its clauses give type-checks both sides "
            "(the clauses contradict each other or the operators)");
  EXPECT_EQ(err("axiom a: forall x. ewadd(x, const_one()) = x\n"
                "  shapes x: [a]\n  values a in 1..2\n"),
            "s.axioms:4:7: a: give the shape of const_one under 'shapes'");
  EXPECT_EQ(err("axiom a: forall x y. ewadd(x, y) = ewadd(y, x)\n"
                "  shapes x: [a, b], y: [a, b]\n  values a in 1..2\n"),
            "s.axioms:5:17: 'b' has no values (add it under 'values')");
}

} // namespace
} // namespace quarry::verify
