//===- ops/softmax.h - Softmax along one axis ------------------*- C++ -*-===//
//
// softmax[axis=a](x), float only: y = exp(x - max) / sum(exp(x - max)) over
// axis a, independently for every position of the other axes.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/float_only.h"

namespace quarry::ops {

struct Softmax : FloatOnly<Softmax> {
  static constexpr std::string_view name = "softmax";
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
