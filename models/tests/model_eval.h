//===- model_eval.h - Running an imported model in tests --------*- C++ -*-===//
#pragma once

#include "quarry/core/evaluate.h"
#include "quarry/core/float_domain.h"
#include "quarry/models/onnx.h"

#include <vector>

namespace quarry::testing {

/// The values of `m`'s first output, reference-evaluated on inputs `in`
/// with the model's own weights.
inline std::vector<float> eval_first(const Model &m,
                                     const Bindings<float> &in) {
  Bindings<float> b = in;
  for (const auto &[name, w] : m.weights)
    b.emplace(name, w);
  return evaluate(FloatDomain{}, m.graph, b).at(0).data;
}

} // namespace quarry::testing
