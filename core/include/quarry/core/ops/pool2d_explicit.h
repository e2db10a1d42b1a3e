//===- ops/pool2d_explicit.h - Pooling with explicit padding ---*- C++ -*-===//
//
// pool2d_explicit[fn=max|avg k=kh,kw s=sh,sw pads=t,l,b,r count_pad=0|1](x),
// float only: ONNX MaxPool/AveragePool on [n,c,h,w] with padding given per
// side; out = (in + before + after - k) / s + 1. Max ignores padding; avg
// divides by the window size with count_pad=1, else by the number of
// in-bounds elements. Pools that the algebra's pool2d expresses exactly are
// imported as pool2d instead.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/float_only.h"

namespace quarry::ops {

inline constexpr std::string_view kPoolFnNames[] = {"avg", "max"};

struct Pool2DExplicit : FloatOnly<Pool2DExplicit> {
  static constexpr std::string_view name = "pool2d_explicit";
  static constexpr int min_inputs = 1, max_inputs = 1;
  enum : size_t { kFn, kKernel, kStride, kPads, kCountPad };
  static AttrSchema attrs() {
    static const AttrSpec specs[] = {
        {"fn", AttrKind::Enum, int64_t{0}, kPoolFnNames},
        kKernelSpec,
        kStrideSpec,
        {"pads", AttrKind::IntList, std::vector<int64_t>{0, 0, 0, 0}, {}, 4},
        {"count_pad", AttrKind::Bool, int64_t{0}}};
    return specs;
  }
  static MaybeTypes infer(const Attrs &a, InTypes in);
  static void run(const Attrs &a, FloatInputs in, FloatOutputs out);
};

} // namespace quarry::ops
