//===- ops/hardmax.h - One-hot of the first maximum along an axis -*- C++
//-*-===//
//
// hardmax[axis=a](x), float only: y is 1 where x holds the first maximum
// along axis a and 0 elsewhere, independently for every position of the
// other axes (ONNX Hardmax from opset 13).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/float_only.h"

namespace quarry::ops {

struct Hardmax : FloatOnly<Hardmax> {
  static constexpr std::string_view name = "hardmax";
  static constexpr int min_inputs = 1, max_inputs = 1;
  enum : size_t { kAxis };
  static AttrSchema attrs() {
    static const AttrSpec specs[] = {{"axis", AttrKind::Int, int64_t{-1}}};
    return specs;
  }
  static MaybeTypes infer(const Attrs &a, InTypes in);
  static void run(const Attrs &a, FloatInputs in, FloatOutputs out);
};

} // namespace quarry::ops
