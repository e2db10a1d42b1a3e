//===- float_domain.h - float32 reference semantics ----------*- C++ -*-===//
//
// The Domain used by the reference backend and by tests: IEEE float32 with
// the usual meaning of every operation. Sums are accumulated in the order the
// operator loops visit them, so results are deterministic.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/domain.h"

#include <algorithm>
#include <cmath>

namespace quarry {

struct FloatDomain {
  using Scalar = float;

  Scalar zero() const { return 0.0f; }
  Scalar one() const { return 1.0f; }
  Scalar from_int(int64_t n) const { return static_cast<float>(n); }
  Scalar constant(double r) const { return static_cast<float>(r); }
  Scalar add(Scalar a, Scalar b) const { return a + b; }
  Scalar sub(Scalar a, Scalar b) const { return a - b; }
  Scalar mul(Scalar a, Scalar b) const { return a * b; }
  Scalar div_int(Scalar a, int64_t n) const {
    return a / static_cast<float>(n);
  }
  Scalar max(Scalar a, Scalar b) const { return std::max(a, b); }
  Scalar unary(UnaryFn f, Scalar a) const {
    switch (f) {
    case UnaryFn::Relu:
      return a > 0.0f ? a : 0.0f;
    case UnaryFn::Sigmoid:
      return 1.0f / (1.0f + std::exp(-a));
    case UnaryFn::Tanh:
      return std::tanh(a);
    case UnaryFn::InvSqrt:
      return 1.0f / std::sqrt(a);
    }
    return a;
  }
};

static_assert(Domain<FloatDomain>);

} // namespace quarry
