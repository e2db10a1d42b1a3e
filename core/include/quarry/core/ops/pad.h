//===- ops/pad.h - Padding -------------------------------------*- C++ -*-===//
//
// pad[pads=b0,..,b(r-1),e0,..,e(r-1) value=v mode=m](x), float only: adds
// b_i elements before and e_i after axis i (ONNX Pad; the pads list has
// ONNX's order). mode=constant fills them with v; reflect mirrors the
// tensor without repeating its edge (at most extent - 1 per side); edge
// repeats the edge. Imported convolutions whose padding is not the
// algebra's `same` become pad + conv2d[pad=valid].
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/float_only.h"
#include "quarry/core/ops/scalar_fns.h"

namespace quarry::ops {

struct Pad : FloatOnly<Pad> {
  static constexpr std::string_view name = "pad";
  static constexpr int min_inputs = 1, max_inputs = 1;
  enum : size_t { kPads, kValue, kMode };
  static AttrSchema attrs() {
    static const AttrSpec specs[] = {
        {"pads", AttrKind::IntList, std::vector<int64_t>{}},
        {"value", AttrKind::Real, 0.0},
        {"mode", AttrKind::Enum, int64_t{0}, kPadModeNames}};
    return specs;
  }
  static MaybeTypes infer(const Attrs &a, InTypes in);
  static void run(const Attrs &a, FloatInputs in, FloatOutputs out);
};

} // namespace quarry::ops
