//===- ops/conv_transpose.h - Transposed 2-D convolution -------*- C++ -*-===//
//
// conv_transpose[s=sh,sw pads=t,l,b,r out_pad=ph,pw](x, w), float only, as
// ONNX ConvTranspose on NCHW: x is [n, c, h, w], w is [c, co/groups, kh,
// kw], and c must be a multiple of `groups`; the output has co channels and
// extent (in - 1) * s + k - before - after + out_pad. Input pixel (y, x) of
// channel i scatters w[i] into the output at (y*s - t, x*s - l).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/float_only.h"

namespace quarry::ops {

struct ConvTranspose : FloatOnly<ConvTranspose> {
  static constexpr std::string_view name = "conv_transpose";
  static constexpr int min_inputs = 2, max_inputs = 2;
  enum : size_t { kStride, kPads, kOutPad, kGroups };
  static AttrSchema attrs() {
    static const AttrSpec specs[] = {
        kStrideSpec,
        {"pads", AttrKind::IntList, std::vector<int64_t>{0, 0, 0, 0}, {}, 4},
        {"out_pad", AttrKind::IntList, std::vector<int64_t>{0, 0}, {}, 2},
        {"groups", AttrKind::Int, int64_t{1}}};
    return specs;
  }
  /// Every input element scatters one kernel slice of co/groups channels.
  static int64_t macs(const Attrs &, InTypes in, const Types &) {
    const Shape &w = in[1].shape;
    return in[0].shape.numel() * w[1] * w[2] * w[3];
  }
  static MaybeTypes infer(const Attrs &a, InTypes in);
  static void run(const Attrs &a, FloatInputs in, FloatOutputs out);
};

} // namespace quarry::ops
