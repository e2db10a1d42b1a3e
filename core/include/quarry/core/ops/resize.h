//===- ops/resize.h - Nearest, linear and cubic resampling -----*- C++ -*-===//
//
// resize[shape=.. mode=nearest|linear|cubic coord=C nearest=N cubic_a=A
// exclude_outside=E](x), float only,
// as ONNX Resize to an explicit output shape. Output coordinate o on an axis
// scaled by r = out/in maps to input coordinate
//   half_pixel: (o + 0.5)/r - 0.5     asymmetric: o/r
//   align_corners: o*(in-1)/(out-1)   pytorch_half_pixel: half_pixel, or 0
//                                     when out == 1
//   tf_half_pixel_for_nn: (o + 0.5)/r
// nearest rounds it (round_prefer_floor, round_prefer_ceil, floor, ceil) and
// clamps; linear interpolates between the two neighbours of every resized
// axis (clamped at the borders); cubic weighs the four around it with Keys'
// kernel of parameter A (ONNX's cubic_coeff_a, default -0.75), repeating
// the edge beyond the borders, or with exclude_outside=1 dropping what
// falls outside and renormalizing.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/float_only.h"

namespace quarry::ops {

inline constexpr std::string_view kResizeModeNames[] = {"nearest", "linear",
                                                        "cubic"};
inline constexpr std::string_view kResizeCoordNames[] = {
    "half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel",
    "tf_half_pixel_for_nn"};
inline constexpr std::string_view kResizeNearestNames[] = {
    "round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
enum class ResizeMode : int64_t { Nearest, Linear, Cubic };
enum class ResizeCoord : int64_t {
  HalfPixel,
  Asymmetric,
  AlignCorners,
  PytorchHalfPixel,
  TfHalfPixelForNn
};
enum class ResizeNearest : int64_t {
  RoundPreferFloor,
  RoundPreferCeil,
  Floor,
  Ceil
};

struct Resize : FloatOnly<Resize> {
  static constexpr std::string_view name = "resize";
  static constexpr int min_inputs = 1, max_inputs = 1;
  enum : size_t { kShape, kMode, kCoord, kNearest, kCubicA, kExcludeOutside };
  static AttrSchema attrs() {
    static const AttrSpec specs[] = {
        {"shape", AttrKind::IntList, std::vector<int64_t>{1}},
        {"mode", AttrKind::Enum, int64_t{0}, kResizeModeNames},
        {"coord", AttrKind::Enum, int64_t{0}, kResizeCoordNames},
        {"nearest", AttrKind::Enum, int64_t{0}, kResizeNearestNames},
        {"cubic_a", AttrKind::Real, -0.75},
        {"exclude_outside", AttrKind::Bool, int64_t{0}}};
    return specs;
  }
  static MaybeTypes infer(const Attrs &a, InTypes in);
  static void run(const Attrs &a, FloatInputs in, FloatOutputs out);
  /// Per output coordinate of an axis of `in` resized to `out`, the input
  /// indices it reads and their weights (nearest: one, linear: two, cubic:
  /// four; an axis not resized: one of weight 1). run() sums over one tap
  /// per axis; a backend may do the same.
  struct Taps {
    std::vector<std::vector<int64_t>> index;
    std::vector<std::vector<double>> weight;
  };
  static Taps taps(const Attrs &a, int64_t in, int64_t out);
  /// The same at ONNX's `scale` of the axis where a model gives one that
  /// is not out/in (its output extent floored): coordinates map by it, and
  /// align_corners by the unfloored width in x scale.
  static Taps taps(const Attrs &a, int64_t in, int64_t out, double scale);
};

} // namespace quarry::ops
