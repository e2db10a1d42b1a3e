//===- ops/slice.h - Strided slices ----------------------------*- C++ -*-===//
//
// slice[starts=.. ends=.. axes=.. steps=..](x), float only, as ONNX Slice:
// per listed axis, indices start, start+step, ... before end; negative
// starts/ends count from the end and are clamped to the axis (to [-1, n-1]
// for negative steps). Values beyond int32 mean "to the end".
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/float_only.h"

namespace quarry::ops {

struct Slice : FloatOnly<Slice> {
  static constexpr std::string_view name = "slice";
  static constexpr int min_inputs = 1, max_inputs = 1;
  enum : size_t { kStarts, kEnds, kAxes, kSteps };
  static AttrSchema attrs() {
    static const AttrSpec specs[] = {
        {"starts", AttrKind::IntList, std::vector<int64_t>{0}},
        {"ends", AttrKind::IntList, std::vector<int64_t>{1}},
        {"axes", AttrKind::IntList, std::vector<int64_t>{0}},
        {"steps", AttrKind::IntList, std::vector<int64_t>{1}}};
    return specs;
  }
  /// Per input axis, the first index and step of the slice. Graphs hold
  /// no empty tensors, so an empty result is an error unless `allow_empty`
  /// (ONNX import evaluating shape arithmetic, where empty slices occur).
  struct Plan {
    std::vector<int64_t> start, step;
    Shape out;
    /// The row-major input `x`'s element where the slice begins.
    int64_t offset(const Shape &x) const;
    /// Per axis, how many of `x`'s elements one step of the result's
    /// index moves (negative for negative steps).
    std::vector<int64_t> strides(const Shape &x) const;
  };
  static Plan plan(const Attrs &a, const Shape &x, bool allow_empty = false);
  static MaybeTypes infer(const Attrs &a, InTypes in) {
    return Types{TensorType(plan(a, in[0].shape).out)};
  }
  static void run(const Attrs &a, FloatInputs in, FloatOutputs out);
};

} // namespace quarry::ops
