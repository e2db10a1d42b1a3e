//===- domain.h - The scalar domains operator semantics run over -*- C++
//-*-===//
//
// Every operator's semantics is written once, as a template over a Domain:
// an object that supplies a Scalar type and the handful of scalar operations
// the operators need. Models of the concept:
//   - FloatDomain (core/float_domain.h): float32 reference evaluation;
//   - PrimeField (field/): exact arithmetic modulo 2^61-1;
//   - a symbolic domain (axiom validation) that builds terms.
// What "exact" means in each, and the substitutes used for operations a
// domain cannot express (relu in a field, say), is in core/SEMANTICS.md.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/shape.h"

#include <concepts>
#include <cstdint>
#include <span>
#include <vector>

namespace quarry {

/// Scalar functions that are not polynomials. A domain either computes them
/// (FloatDomain) or models them as fixed uninterpreted functions.
enum class UnaryFn { Relu, Sigmoid, Tanh, InvSqrt };

template <class D>
concept Domain = requires(const D &d, const typename D::Scalar &a,
                          const typename D::Scalar &b, int64_t n, double r,
                          UnaryFn f) {
  typename D::Scalar;
  { d.zero() } -> std::convertible_to<typename D::Scalar>;
  { d.one() } -> std::convertible_to<typename D::Scalar>;
  { d.from_int(n) } -> std::convertible_to<typename D::Scalar>;
  /// A real constant (an epsilon); exact domains map it to a fixed element.
  { d.constant(r) } -> std::convertible_to<typename D::Scalar>;
  { d.add(a, b) } -> std::convertible_to<typename D::Scalar>;
  { d.sub(a, b) } -> std::convertible_to<typename D::Scalar>;
  { d.mul(a, b) } -> std::convertible_to<typename D::Scalar>;
  /// a / n for a positive integer n (average pooling).
  { d.div_int(a, n) } -> std::convertible_to<typename D::Scalar>;
  /// A commutative, associative selection of one of a, b (max pooling).
  { d.max(a, b) } -> std::convertible_to<typename D::Scalar>;
  { d.unary(f, a) } -> std::convertible_to<typename D::Scalar>;
};

/// A dense row-major tensor of scalars.
template <class S> struct Tensor {
  Shape shape;
  std::vector<S> data;

  Tensor() = default;
  Tensor(Shape s, S fill) : shape(std::move(s)), data(shape.numel(), fill) {}
  Tensor(Shape s, std::vector<S> values)
      : shape(std::move(s)), data(std::move(values)) {}

  int64_t numel() const { return static_cast<int64_t>(data.size()); }
  S &operator[](int64_t i) { return data[i]; }
  const S &operator[](int64_t i) const { return data[i]; }
  friend bool operator==(const Tensor &, const Tensor &) = default;
};

template <Domain D> using TensorOf = Tensor<typename D::Scalar>;

/// What an operator's evaluate() receives: its inputs, and its outputs already
/// shaped by shape inference (values to be filled in).
template <Domain D> using OpInputs = std::span<const TensorOf<D> *const>;
template <Domain D> using OpOutputs = std::span<TensorOf<D>>;

} // namespace quarry
