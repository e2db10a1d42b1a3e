//===- ops/broadcast.h - Binary arithmetic with broadcasting --*- C++ -*-===//
//
// broadcast[fn=F](x, y), float only: numpy/ONNX multidirectional
// broadcasting (shapes aligned at the last axis; an extent of 1, or a
// missing leading axis, repeats). fn is add, sub, mul, div, pow, max, min,
// or a comparison (eq, ne, lt, le, gt, ge) giving 1 where it holds and 0
// elsewhere: ONNX's booleans, as float32.
// ewadd/ewmul remain the algebra's equal-shape operators; this one carries
// bias additions and the arithmetic of imported networks.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/float_only.h"
#include "quarry/core/ops/scalar_fns.h"

#include <array>

namespace quarry::ops {

struct Broadcast : FloatOnly<Broadcast> {
  static constexpr std::string_view name = "broadcast";
  static constexpr int min_inputs = 2, max_inputs = 2;
  enum : size_t { kFn };
  static AttrSchema attrs() {
    static const AttrSpec specs[] = {
        {"fn", AttrKind::Enum, int64_t{0}, kBroadcastNames}};
    return specs;
  }
  static MaybeTypes infer(const Attrs &a, InTypes in);
  static void run(const Attrs &a, FloatInputs in, FloatOutputs out);
};

/// The broadcast shape of a and b; throws naming `op` when incompatible.
Shape broadcast_shape(std::string_view op, const Shape &a, const Shape &b);

/// Strides of `s` seen through the broadcast shape `out`: 0 on repeated
/// axes (and on the axes `s` lacks).
std::vector<int64_t> broadcast_strides(const Shape &s, const Shape &out);

/// Calls f(i, at) for every element i of `out` in order, at[k] being the
/// element of operand k it reads through `strides[k]` (broadcast_strides).
template <size_t N, class F>
void for_each_broadcast(const Shape &out,
                        const std::array<std::vector<int64_t>, N> &strides,
                        F &&f) {
  const int r = out.rank();
  std::vector<int64_t> idx(r, 0);
  std::array<int64_t, N> at{};
  for (int64_t i = 0; i < out.numel(); ++i) {
    f(i, at);
    for (int d = r - 1; d >= 0; --d) {
      for (size_t k = 0; k < N; ++k)
        at[k] += strides[k][d];
      if (++idx[d] < out[d])
        break;
      for (size_t k = 0; k < N; ++k)
        at[k] -= strides[k][d] * idx[d];
      idx[d] = 0;
    }
  }
}

/// Whether fn(x, y) == fn(y, x).
inline bool commutative(BroadcastFn fn) {
  return fn == BroadcastFn::Add || fn == BroadcastFn::Mul ||
         fn == BroadcastFn::Max || fn == BroadcastFn::Min ||
         fn == BroadcastFn::Eq || fn == BroadcastFn::Ne;
}

} // namespace quarry::ops
