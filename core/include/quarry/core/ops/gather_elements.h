//===- ops/gather_elements.h - Elements picked along an axis ---*- C++ -*-===//
//
// gather_elements[axis=a](x, indices), float only, as ONNX GatherElements
// (torch.gather): y has the indices' shape, and
//   y[i0, .., ia, .., ir] = x[i0, .., indices[i0, .., ia, .., ir], .., ir].
// x and indices have the same rank, and indices is no larger than x on
// every axis but a. The indices are integers held as float32 (exact up to
// 2^24, far past any extent); a negative one counts from the end of axis
// a. An index that is not an integer in [-extent, extent) is an error, not
// a read outside x.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/float_only.h"

namespace quarry::ops {

struct GatherElements : FloatOnly<GatherElements> {
  static constexpr std::string_view name = "gather_elements";
  static constexpr int min_inputs = 2, max_inputs = 2;
  enum : size_t { kAxis };
  static AttrSchema attrs() {
    static const AttrSpec specs[] = {{"axis", AttrKind::Int, int64_t{0}}};
    return specs;
  }
  static MaybeTypes infer(const Attrs &a, InTypes in);
  static void run(const Attrs &a, FloatInputs in, FloatOutputs out);
};

} // namespace quarry::ops
