//===- ops/reduce_mean.h - Mean over axes ----------------------*- C++ -*-===//
//
// reduce_mean[axes=.. keepdims=1](x), float only: the mean over the listed
// axes (negative counts from the end); keepdims keeps them with extent 1.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/float_only.h"

namespace quarry::ops {

struct ReduceMean : FloatOnly<ReduceMean> {
  static constexpr std::string_view name = "reduce_mean";
  static constexpr int min_inputs = 1, max_inputs = 1;
  enum : size_t { kAxes, kKeepDims };
  static AttrSchema attrs() {
    static const AttrSpec specs[] = {
        {"axes", AttrKind::IntList, std::vector<int64_t>{-1}},
        {"keepdims", AttrKind::Bool, int64_t{1}}};
    return specs;
  }
  static MaybeTypes infer(const Attrs &a, InTypes in);
  static void run(const Attrs &a, FloatInputs in, FloatOutputs out);
};

} // namespace quarry::ops
