//===- field61_test.cc - GF(2^61-1) arithmetic ----------------------------===//
#include "quarry/field/prime_field.h"
#include "quarry/field/random_field.h"
#include "quarry/field/tensor_hash.h"

#include <gtest/gtest.h>

namespace quarry {
namespace {

using namespace field61;

TEST(Field61, ReducesAndWraps) {
  EXPECT_EQ(add(kP - 1, 1), 0u);
  EXPECT_EQ(sub(0, 1), kP - 1);
  EXPECT_EQ(from_int(-1), kP - 1);
  EXPECT_EQ(from_int(INT64_MIN), sub(0, reduce64(uint64_t{1} << 63)));
  EXPECT_EQ(reduce64(kP), 0u);
  EXPECT_EQ(reduce64(~uint64_t{0}), (~uint64_t{0}) % kP);
  EXPECT_EQ(mul(kP - 1, kP - 1), 1u); // (-1)^2
}

TEST(Field61, MulMatchesWideArithmetic) {
  uint64_t a = 0x123456789abcdefULL % kP, b = 0x0fedcba987654321ULL % kP;
  for (int i = 0; i < 1000; ++i) {
    unsigned __int128 wide = static_cast<unsigned __int128>(a) * b;
    EXPECT_EQ(mul(a, b), static_cast<uint64_t>(wide % kP));
    a = scramble(a, 1);
    b = scramble(b, 2);
  }
}

TEST(Field61, InverseAndDivision) {
  PrimeField f;
  for (int64_t n : {1, 2, 3, 9, 1000003}) {
    EXPECT_EQ(mul(inverse(from_int(n)), from_int(n)), 1u);
    EXPECT_EQ(f.mul(f.div_int(f.from_int(7), n), f.from_int(n)), f.from_int(7));
  }
}

TEST(PrimeField, NonlinearFunctionsAreFixedAndSeeded) {
  PrimeField a(1), b(2);
  Fp x = a.from_int(5);
  EXPECT_EQ(a.unary(UnaryFn::Relu, x), a.unary(UnaryFn::Relu, x));
  EXPECT_NE(a.unary(UnaryFn::Relu, x), a.unary(UnaryFn::Sigmoid, x));
  EXPECT_NE(a.unary(UnaryFn::Relu, x), b.unary(UnaryFn::Relu, x));
  EXPECT_EQ(a.max(x, a.from_int(3)), x);
  EXPECT_EQ(a.constant(3.0), a.from_int(3));
  EXPECT_EQ(a.constant(1e-5), b.constant(1e-5));
}

TEST(TensorHash, DependsOnShapeAndValues) {
  Tensor<Fp> t(Shape{2, 2}, Fp{1});
  Tensor<Fp> u(Shape{4}, Fp{1});
  Tensor<Fp> v(Shape{2, 2}, Fp{1});
  v[3] = Fp{2};
  EXPECT_NE(hash_tensor(t), hash_tensor(u));
  EXPECT_NE(hash_tensor(t), hash_tensor(v));
  EXPECT_EQ(hash_tensor(t), hash_tensor(Tensor<Fp>(Shape{2, 2}, Fp{1})));
}

} // namespace
} // namespace quarry
