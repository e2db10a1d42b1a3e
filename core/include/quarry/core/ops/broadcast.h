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

/// Whether fn(x, y) == fn(y, x).
inline bool commutative(BroadcastFn fn) {
  return fn == BroadcastFn::Add || fn == BroadcastFn::Mul ||
         fn == BroadcastFn::Max || fn == BroadcastFn::Min ||
         fn == BroadcastFn::Eq || fn == BroadcastFn::Ne;
}

} // namespace quarry::ops
