//===- ops/pool2d_explicit.h - Pooling with explicit padding ---*- C++ -*-===//
//
// pool2d_explicit[fn=max|avg k=kh,kw s=sh,sw pads=t,l,b,r count_pad=0|1
//                 d=dh,dw ceil=0|1](x),
// float only: ONNX MaxPool/AveragePool on [n,c,h,w] with padding given per
// side. A window spans e = (k - 1) * d + 1 elements (taps d apart, max only);
// out = (in + before + after - e) / s + 1, rounded up with ceil=1, when a
// last window that would start past the input and its leading padding is
// dropped (as ONNX Runtime and PyTorch do). Max ignores padding; avg
// divides by the number of window elements within the padded input with
// count_pad=1, else by the number within the input. Pools that the
// algebra's pool2d expresses exactly are imported as pool2d instead.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/float_only.h"

namespace quarry::ops {

inline constexpr std::string_view kPoolFnNames[] = {"avg", "max"};

struct Pool2DExplicit : FloatOnly<Pool2DExplicit> {
  static constexpr std::string_view name = "pool2d_explicit";
  static constexpr int min_inputs = 1, max_inputs = 1;
  enum : size_t { kFn, kKernel, kStride, kPads, kCountPad, kDilation, kCeil };
  static AttrSchema attrs() {
    static const AttrSpec specs[] = {
        {"fn", AttrKind::Enum, int64_t{0}, kPoolFnNames},
        kKernelSpec,
        kStrideSpec,
        {"pads", AttrKind::IntList, std::vector<int64_t>{0, 0, 0, 0}, {}, 4},
        {"count_pad", AttrKind::Bool, int64_t{0}},
        {"d", AttrKind::IntList, std::vector<int64_t>{1, 1}, {}, 2},
        {"ceil", AttrKind::Bool, int64_t{0}}};
    return specs;
  }
  static MaybeTypes infer(const Attrs &a, InTypes in);
  static void run(const Attrs &a, FloatInputs in, FloatOutputs out);
};

/// One axis's output extent: an input of `in` elements, `before` and
/// `after` padding, windows of k taps d apart every s elements, rounded up
/// with `ceil` (less a last window that would hold padding only). Fails
/// for a window wider than the padded input, or values out of range.
int64_t pool_extent(int64_t in, int64_t k, int64_t s, int64_t d, int64_t before,
                    int64_t after, bool ceil);

} // namespace quarry::ops
