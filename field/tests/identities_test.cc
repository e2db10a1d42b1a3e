//===- identities_test.cc - TASO's axioms hold in float and in the field --===//
//
// Each case is a pair of graphs over the same variables. The one operator
// semantics must make them equal exactly in GF(2^61-1) and within rounding
// in float32, on several random inputs; non-identities must differ.
//
//===----------------------------------------------------------------------===//
#include "quarry/core/float_domain.h"
#include "quarry/core/text.h"
#include "quarry/field/random_field.h"

#include <gtest/gtest.h>

#include <cmath>

namespace quarry {
namespace {

struct Case {
  const char *name;
  const char *decls; ///< variables, shared by both sides
  const char *lhs;   ///< statements ending in "output ..."
  const char *rhs;
};

std::ostream &operator<<(std::ostream &os, const Case &c) {
  return os << c.name;
}

const Case kIdentities[] = {
    {"ewadd_assoc", "input x: [2,3]\ninput y: [2,3]\ninput z: [2,3]",
     "r = ewadd(x, ewadd(y, z))\noutput r",
     "r = ewadd(ewadd(x, y), z)\noutput r"},
    {"ewmul_comm", "input x: [2,3,2]\ninput y: [2,3,2]",
     "r = ewmul(x, y)\noutput r", "r = ewmul(y, x)\noutput r"},
    {"ew_distrib", "input x: [4,3]\ninput y: [4,3]\ninput z: [4,3]",
     "r = ewmul(ewadd(x, y), z)\noutput r",
     "r = ewadd(ewmul(x, z), ewmul(y, z))\noutput r"},
    {"scalar_mul_matmul", "input x: [2,3]\ninput y: [3,4]\ninput s: []",
     "r = scalar_mul(matmul(x, y), s)\noutput r",
     "r = matmul(x, scalar_mul(y, s))\noutput r"},
    {"scalar_mul_conv", "input x: [1,2,5,5]\nweight w: [3,2,3,3]\ninput s: []",
     "r = scalar_mul(conv2d[s=2,2](x, w), s)\noutput r",
     "r = conv2d[s=2,2](scalar_mul(x, s), w)\noutput r"},
    {"relu_conv", "input x: [2,2,4,4]\nweight w: [3,2,1,3]",
     "r = relu(conv2d[pad=valid](x, w))\noutput r",
     "r = conv2d[pad=valid act=relu](x, w)\noutput r"},
    {"relu_concat", "input x: [2,3]\ninput y: [2,1]",
     "r = relu(concat[axis=1](x, y))\noutput r",
     "r = concat[axis=1](relu(x), relu(y))\noutput r"},
    {"relu_transpose", "input x: [2,3]", "r = relu(transpose(x))\noutput r",
     "r = transpose(relu(x))\noutput r"},
    {"conv_bilinear_weights",
     "input x: [1,2,5,5]\nweight y: [3,2,3,3]\nweight z: [3,2,3,3]",
     "r = conv2d(x, ewadd(y, z))\noutput r",
     "r = ewadd(conv2d(x, y), conv2d(x, z))\noutput r"},
    {"conv_concat_channels",
     "input x: [1,2,4,4]\nweight y: [3,2,3,3]\ninput z: [1,1,4,4]\n"
     "weight w: [3,1,3,3]",
     "r = ewadd(conv2d[s=2,1](x, y), conv2d[s=2,1](z, w))\noutput r",
     "r = conv2d[s=2,1](concat[axis=1](x, z), concat[axis=1](y, w))\n"
     "output r"},
    {"conv_concat_weights",
     "input x: [2,2,5,5]\nweight w1: [3,2,3,3]\nweight w2: [1,2,3,3]",
     "r = conv2d[act=relu](x, concat[axis=0](w1, w2))\noutput r",
     "r = concat[axis=1](conv2d[act=relu](x, w1), conv2d[act=relu](x, w2))\n"
     "output r"},
    {"conv_concat_batch",
     "input x: [1,2,4,4]\ninput y: [2,2,4,4]\nweight z: [3,2,3,3]",
     "r = concat[axis=0](conv2d[pad=valid](x, z), conv2d[pad=valid](y, z))\n"
     "output r",
     "r = conv2d[pad=valid](concat[axis=0](x, y), z)\noutput r"},
    {"matmul_ewadd", "input x: [2,3]\ninput y: [3,4]\ninput z: [3,4]",
     "r = matmul(x, ewadd(y, z))\noutput r",
     "r = ewadd(matmul(x, y), matmul(x, z))\noutput r"},
    {"matmul_concat_inner",
     "input x: [2,3]\ninput y: [3,4]\ninput z: [2,1]\ninput w: [1,4]",
     "r = ewadd(matmul(x, y), matmul(z, w))\noutput r",
     "r = matmul(concat[axis=1](x, z), concat[axis=0](y, w))\noutput r"},
    {"matmul_concat_cols", "input x: [2,3]\ninput y: [3,4]\ninput z: [3,2]",
     "r = matmul(x, concat[axis=1](y, z))\noutput r",
     "r = concat[axis=1](matmul(x, y), matmul(x, z))\noutput r"},
    {"matmul_assoc", "input x: [2,3]\ninput y: [3,4]\ninput z: [4,2]",
     "r = matmul(x, matmul(y, z))\noutput r",
     "r = matmul(matmul(x, y), z)\noutput r"},
    {"split_concat", "input x: [2,3,2]\ninput y: [2,1,2]",
     "a, b = split[axis=1](concat[axis=1](x, y))\noutput a, b", "output x, y"},
    {"concat_ewadd",
     "input x: [2,3]\ninput y: [2,3]\ninput z: [1,3]\ninput w: [1,3]",
     "r = concat[axis=0](ewadd(x, y), ewadd(z, w))\noutput r",
     "r = ewadd(concat[axis=0](x, z), concat[axis=0](y, w))\noutput r"},
    {"transpose_involution", "input x: [2,3]",
     "r = transpose(transpose(x))\noutput r", "output x"},
    {"transpose_matmul", "input x: [2,3]\ninput y: [3,4]",
     "r = transpose(matmul(x, y))\noutput r",
     "r = matmul(transpose(y), transpose(x))\noutput r"},
    {"transpose_concat", "input x: [2,3]\ninput y: [1,3]",
     "r = transpose(concat[axis=0](x, y))\noutput r",
     "r = concat[axis=1](transpose(x), transpose(y))\noutput r"},
    {"concat_geometry",
     "input x: [2,3]\ninput y: [2,1]\ninput z: [4,3]\ninput w: [4,1]",
     "r = concat[axis=0](concat[axis=1](x, y), concat[axis=1](z, w))\n"
     "output r",
     "r = concat[axis=1](concat[axis=0](x, z), concat[axis=0](y, w))\n"
     "output r"},
    {"pool_avg_concat", "input x: [1,2,5,5]\ninput y: [1,3,5,5]",
     "r = concat[axis=1](pool2d_avg[k=3,3 s=2,2](x), "
     "pool2d_avg[k=3,3 s=2,2](y))\noutput r",
     "r = pool2d_avg[k=3,3 s=2,2](concat[axis=1](x, y))\noutput r"},
    {"pool_max_concat", "input x: [1,2,5,5]\ninput y: [2,2,5,5]",
     "r = concat[axis=0](pool2d_max[k=3,3 pad=valid](x), "
     "pool2d_max[k=3,3 pad=valid](y))\noutput r",
     "r = pool2d_max[k=3,3 pad=valid](concat[axis=0](x, y))\noutput r"},
    {"const_pool", "input x: [2,3,5,5]",
     "r = conv2d[s=2,1](x, const_pool[k=3,3 shape=3,1,3,3]())\noutput r",
     "r = pool2d_avg[k=3,3 s=2,1](x)\noutput r"},
    {"const_iconv", "input x: [2,3,4,4]",
     "r = conv2d(x, const_iconv[k=3,3 shape=3,1,3,3]())\noutput r", "output x"},
    {"const_iconv_dense", "input x: [1,3,4,4]",
     "r = conv2d(x, const_iconv[k=1,3 shape=3,3,1,3]())\noutput r", "output x"},
    {"const_imm", "input x: [2,3]",
     "r = matmul(x, const_imm[shape=3,3]())\noutput r", "output x"},
    {"const_one", "input x: [2,3,2]",
     "r = ewmul(x, const_one[shape=2,3,2]())\noutput r", "output x"},
    {"enlarge", "input x: [1,2,5,4]\nweight w: [3,2,1,3]",
     "r = conv2d[s=2,2 act=relu](x, w)\noutput r",
     "r = conv2d[s=2,2 act=relu](x, enlarge[k=3,3](w))\noutput r"},
    {"batchnorm_channels",
     "input x: [1,2,2,2]\ninput y: [1,1,2,2]\nweight s: [3]\nweight b: [3]\n"
     "weight m: [3]\nweight v: [3]",
     "r = batchnorm(concat[axis=1](x, y), s, b, m, v)\noutput r",
     "r = batchnorm(concat[axis=1](x, y), s, b, m, v)\noutput r"},
};

const Case kNonIdentities[] = {
    {"relu_not_additive", "input x: [2,3]\ninput y: [2,3]",
     "r = relu(ewadd(x, y))\noutput r",
     "r = ewadd(relu(x), relu(y))\noutput r"},
    {"matmul_not_commutative", "input x: [3,3]\ninput y: [3,3]",
     "r = matmul(x, y)\noutput r", "r = matmul(y, x)\noutput r"},
    // TASO's wrong grouped-convolution axiom: unequal output channel counts.
    {"grouped_conv_concat",
     "input x: [1,2,3,3]\nweight y: [1,2,3,3]\ninput z: [1,2,3,3]\n"
     "weight w: [3,2,3,3]",
     "r = concat[axis=1](conv2d(x, y), conv2d(z, w))\noutput r",
     "r = conv2d(concat[axis=1](x, z), concat[axis=0](y, w))\noutput r"},
    {"sigmoid_vs_tanh", "input x: [4]", "r = sigmoid(x)\noutput r",
     "r = tanh(x)\noutput r"},
};

struct Sides {
  Graph lhs, rhs;
};

Sides parse_case(const Case &c) {
  const std::string decls = std::string(c.decls) + "\n";
  return {parse_graph(decls + c.lhs, "lhs"), parse_graph(decls + c.rhs, "rhs")};
}

bool field_equal(const Sides &s, uint64_t seed) {
  PrimeField f(seed);
  auto in = random_field_bindings(s.lhs, seed);
  return evaluate(f, s.lhs, in) == evaluate(f, s.rhs, in);
}

/// Largest elementwise difference relative to max(1, |value|).
double float_error(const Sides &s, uint64_t seed) {
  auto in = random_float_bindings(s.lhs, seed);
  // Batchnorm variances must be positive for float evaluation.
  for (auto &[name, t] : in)
    if (name == "v")
      for (float &x : t.data)
        x = std::fabs(x) + 0.5f;
  auto a = evaluate(FloatDomain{}, s.lhs, in);
  auto b = evaluate(FloatDomain{}, s.rhs, in);
  double err = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].shape != b[i].shape)
      return INFINITY;
    for (int64_t k = 0; k < a[i].numel(); ++k)
      err = std::max(err, std::fabs(double(a[i][k]) - b[i][k]) /
                              std::max(1.0, std::fabs(double(a[i][k]))));
  }
  return err;
}

class Identity : public testing::TestWithParam<Case> {};

TEST_P(Identity, HoldsInFieldAndFloat) {
  const Sides s = parse_case(GetParam());
  for (uint64_t seed : {1, 2, 3}) {
    EXPECT_TRUE(field_equal(s, seed)) << "seed " << seed;
    EXPECT_LT(float_error(s, seed), 1e-5) << "seed " << seed;
  }
}

INSTANTIATE_TEST_SUITE_P(TasoAxioms, Identity, testing::ValuesIn(kIdentities),
                         [](const auto &info) { return info.param.name; });

class NonIdentity : public testing::TestWithParam<Case> {};

TEST_P(NonIdentity, IsRejectedInFieldAndFloat) {
  const Sides s = parse_case(GetParam());
  EXPECT_FALSE(field_equal(s, 1));
  EXPECT_GT(float_error(s, 1), 1e-3);
}

INSTANTIATE_TEST_SUITE_P(Wrong, NonIdentity, testing::ValuesIn(kNonIdentities),
                         [](const auto &info) { return info.param.name; });

TEST(Fingerprint, SeedsGiveIndependentEvaluations) {
  const Sides s = parse_case(kNonIdentities[0]);
  PrimeField f1(1), f2(2);
  auto in = random_field_bindings(s.lhs, 1);
  EXPECT_NE(evaluate(f1, s.lhs, in), evaluate(f2, s.lhs, in));
}

} // namespace
} // namespace quarry
