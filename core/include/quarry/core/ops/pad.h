//===- ops/pad.h - Constant padding ----------------------------*- C++ -*-===//
//
// pad[pads=b0,..,b(r-1),e0,..,e(r-1) value=v](x), float only: adds b_i
// elements before and e_i after axis i, all equal to v (ONNX Pad, constant
// mode; the pads list has ONNX's order). Imported convolutions whose
// padding is not the algebra's `same` become pad + conv2d[pad=valid].
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/float_only.h"

namespace quarry::ops {

struct Pad : FloatOnly<Pad> {
  static constexpr std::string_view name = "pad";
  static constexpr int min_inputs = 1, max_inputs = 1;
  enum : size_t { kPads, kValue };
  static AttrSchema attrs() {
    static const AttrSpec specs[] = {
        {"pads", AttrKind::IntList, std::vector<int64_t>{}},
        {"value", AttrKind::Real, 0.0}};
    return specs;
  }
  static MaybeTypes infer(const Attrs &a, InTypes in);
  static void run(const Attrs &a, FloatInputs in, FloatOutputs out);
};

} // namespace quarry::ops
