//===- ops/grid_sample.h - Sampling an image at given points ---*- C++ -*-===//
//
// grid_sample[mode=bilinear|nearest|bicubic pad=zeros|border|reflection
// align=0|1](x, grid), float only, as ONNX GridSample: x [n,c,h,w], grid
// [n,ho,wo,2] of (x, y) points in [-1, 1]; y [n,c,ho,wo] is x sampled at
// each point. A point maps to pixel coordinates
//   align=1: (g + 1) / 2 * (size - 1)    align=0: ((g + 1) * size - 1) / 2
// (align=1 puts -1 and 1 on the corner pixels' centres, align=0 on their
// outer edges). Nearest rounds half to even; bilinear weighs the four
// pixels around the point; bicubic the sixteen, with Keys' kernel (A =
// -0.75). Outside the image, zeros reads 0, border the nearest edge pixel,
// reflection the image mirrored at its edges (at the corner pixels' centres
// with align=1, at their outer edges with align=0). Nearest and bilinear
// move the point itself for border and reflection; bicubic moves each of
// its taps, as PyTorch, whose operator ONNX's follows, does.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/float_only.h"

namespace quarry::ops {

inline constexpr std::string_view kGridSampleModeNames[] = {
    "bilinear", "nearest", "bicubic"};
inline constexpr std::string_view kGridSamplePadNames[] = {"zeros", "border",
                                                           "reflection"};
enum class GridSampleMode : int64_t { Bilinear, Nearest, Bicubic };
enum class GridSamplePad : int64_t { Zeros, Border, Reflection };

struct GridSample : FloatOnly<GridSample> {
  static constexpr std::string_view name = "grid_sample";
  static constexpr int min_inputs = 2, max_inputs = 2;
  enum : size_t { kMode, kPad, kAlign };
  static AttrSchema attrs() {
    static const AttrSpec specs[] = {
        {"mode", AttrKind::Enum, int64_t{0}, kGridSampleModeNames},
        {"pad", AttrKind::Enum, int64_t{0}, kGridSamplePadNames},
        {"align", AttrKind::Bool, int64_t{0}}};
    return specs;
  }
  static MaybeTypes infer(const Attrs &a, InTypes in);
  static void run(const Attrs &a, FloatInputs in, FloatOutputs out);
};

} // namespace quarry::ops
