//===- ops/where.h - Choosing between two tensors by a condition -*- C++
//-*-===//
//
// where(c, x, y), float only: x where c is not 0, else y, with numpy/ONNX
// broadcasting over all three (ONNX Where, its boolean condition as the 0
// and 1 a comparison gives). Only the chosen operand is read: a NaN or an
// infinity in the other never reaches the result.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/float_only.h"

namespace quarry::ops {

struct Where : FloatOnly<Where> {
  static constexpr std::string_view name = "where";
  static constexpr int min_inputs = 3, max_inputs = 3;
  static AttrSchema attrs() { return {}; }
  static MaybeTypes infer(const Attrs &a, InTypes in);
  static void run(const Attrs &a, FloatInputs in, FloatOutputs out);
  /// One element: a backend's own loops choose by this, as run does.
  static float select(float c, float x, float y) { return c != 0.0f ? x : y; }
};

} // namespace quarry::ops
