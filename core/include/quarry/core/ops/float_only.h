//===- ops/float_only.h - Operators outside the exact algebra --*- C++ -*-===//
//
// Imported networks use operators that have no exact field meaning (softmax,
// resize, division, ...). They are ordinary IR operators with shape
// inference and float32 semantics, marked OpTraits::float_only: the
// generator and verifier never reason about them, the optimizer treats them
// as opaque, and evaluating one in any domain but FloatDomain throws a
// quarry::Error naming the operator. Their float code lives in
// core/src/float_ops/, one file per operator, over plain float tensors.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/float_domain.h"
#include "quarry/core/ops/common.h"

#include <type_traits>

namespace quarry::ops {

using FloatTensor = Tensor<float>;
using FloatInputs = std::span<const FloatTensor *const>;
using FloatOutputs = std::span<FloatTensor>;

/// Runs Def::run() in FloatDomain; in any other domain, a clear error.
template <class Def, Domain D>
void evaluate_float_only(const Attrs &a, OpInputs<D> in, OpOutputs<D> out) {
  if constexpr (std::is_same_v<D, FloatDomain>)
    Def::run(a, in, out);
  else
    fail(Def::name, "has no exact semantics; only float evaluation runs it");
}

/// Calls f(base, n, stride) once per lane of a tensor of `shape` along
/// `axis`: the n elements at base, base + stride, ... (softmax, hardmax).
template <class F> void for_each_lane(const Shape &shape, int axis, F f) {
  const int64_t n = shape[axis];
  const int64_t stride = shape.strides()[axis];
  const int64_t outer = n == 0 ? 0 : shape.numel() / (n * stride);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < stride; ++i)
      f(o * n * stride + i, n, stride);
}

/// The members every float-only operator shares; `Def` supplies name,
/// arity, attrs(), infer() and run().
template <class Def> struct FloatOnly {
  static constexpr OpTraits traits{.float_only = true};
  static int num_outputs(const Attrs &) { return 1; }
  template <Domain D>
  static void evaluate(const D &, const Attrs &a, OpInputs<D> in,
                       OpOutputs<D> out) {
    evaluate_float_only<Def, D>(a, in, out);
  }
};

/// An axis in [-rank, rank) made non-negative; throws when out of range.
int normalize_axis(std::string_view op, int64_t axis, int rank);

} // namespace quarry::ops
