//===- symbolic_domain_test.cc - Polynomials, symbols, the domain ---------===//
#include "quarry/core/evaluate.h"
#include "quarry/core/text.h"
#include "quarry/validate_axioms/symbolic_domain.h"

#include <gtest/gtest.h>

namespace quarry::validate_axioms {
namespace {

TEST(Rational, ReducesAndDetectsOverflow) {
  EXPECT_EQ(Rational::fraction(6, -4).str(), "-3/2");
  EXPECT_EQ((Rational::fraction(1, 9) * Rational(9)).str(), "1");
  EXPECT_EQ((Rational::fraction(1, 6) + Rational::fraction(1, 3)).str(), "1/2");
  EXPECT_THROW(Rational(INT64_MAX) + Rational(1), Error);
  EXPECT_THROW(Rational(INT64_MAX / 2) * Rational(3), Error);
}

TEST(Polynomial, NormalFormIsCanonical) {
  const Polynomial x = Polynomial::symbol(1), y = Polynomial::symbol(2),
                   z = Polynomial::symbol(3);
  // (x + y) * z = z * y + x * z, and (x - x) vanishes.
  EXPECT_EQ((x + y) * z, z * y + x * z);
  EXPECT_TRUE((x - x).is_zero());
  EXPECT_EQ((x * (y * z)), ((x * y) * z));
  EXPECT_NE(x * y, x + y);
  // Degree 4 is allowed, degree 5 is refused rather than truncated.
  const Polynomial x4 = x * x * x * x;
  EXPECT_EQ(x4.terms().size(), 1u);
  EXPECT_THROW(x4 * y, Error);
}

TEST(SymbolTable, FunctionTermsAreInterned) {
  SymbolTable t;
  auto v = t.elements("x", Shape{2});
  const Polynomial s = v[0] + v[1];
  EXPECT_EQ(t.apply(UnaryFn::Relu, s), t.apply(UnaryFn::Relu, v[1] + v[0]));
  EXPECT_NE(t.apply(UnaryFn::Relu, s), t.apply(UnaryFn::Tanh, s));
  EXPECT_EQ(t.apply(UnaryFn::Relu, Polynomial::constant(Rational(-2))),
            Polynomial());
  // max is a semilattice: commutative, associative, idempotent.
  auto w = t.elements("w", Shape{3});
  const Polynomial m1 = t.max(t.max(w[0], w[1]), w[2]);
  const Polynomial m2 = t.max(w[2], t.max(w[1], t.max(w[0], w[2])));
  EXPECT_EQ(m1, m2);
  EXPECT_TRUE(t.mentions_max(t.apply(UnaryFn::Relu, m1)));
  EXPECT_FALSE(t.mentions_max(s));
  EXPECT_EQ(t.name(v[0].as_symbol()), "x[0]");
}

TEST(SymbolicDomain, EvaluatesGraphsThroughCoreSemantics) {
  // relu(conv) and conv with a fused relu meet in the same symbols.
  const Graph a = parse_graph("input x: [1,2,3,3]\nweight w: [2,2,3,3]\n"
                              "y = relu(conv2d(x, w))\noutput y\n",
                              "a.qg");
  const Graph b = parse_graph("input x: [1,2,3,3]\nweight w: [2,2,3,3]\n"
                              "y = conv2d[act=relu](x, w)\noutput y\n",
                              "b.qg");
  SymbolTable t;
  SymbolicDomain d(t);
  Bindings<Polynomial> in;
  in.emplace("x", Tensor<Polynomial>(Shape{1, 2, 3, 3},
                                     t.elements("x", Shape{1, 2, 3, 3})));
  in.emplace("w", Tensor<Polynomial>(Shape{2, 2, 3, 3},
                                     t.elements("w", Shape{2, 2, 3, 3})));
  EXPECT_EQ(evaluate(d, a, in), evaluate(d, b, in));
  // Average pooling's 1/9 is exact.
  const Graph p = parse_graph("input x: [1,1,3,3]\n"
                              "y = pool2d_avg[k=3,3 pad=valid](x)\noutput y\n",
                              "p.qg");
  Bindings<Polynomial> one;
  one.emplace("x", Tensor<Polynomial>(Shape{1, 1, 3, 3},
                                      t.elements("x", Shape{1, 1, 3, 3})));
  const auto y = evaluate(d, p, one);
  ASSERT_EQ(y[0].numel(), 1);
  EXPECT_EQ(y[0][0].terms().size(), 9u);
  EXPECT_EQ(y[0][0].terms()[0].coeff.str(), "1/9");
}

} // namespace
} // namespace quarry::validate_axioms
