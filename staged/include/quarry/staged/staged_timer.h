//===- staged_timer.h - Timing graphs of a model that keeps nodes -*- C++
//-*-===//
//
// The optimizer's timed selection (optimizer/optimize.h, PrepareTimer)
// prepares each candidate graph and times runs of it. A candidate of a
// model that keeps ONNX nodes holds opaque operators no backend runs; here
// it runs in stages (staged_executable.h) with the model's kept nodes
// beside it, its untyped tail included, which is the same for every
// candidate; a graph without one runs as the backend prepares it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/model.h"
#include "quarry/runtime/backend.h"

#include <functional>
#include <string>

namespace quarry::staged {

/// Prepares graph `g` with weights from `weights` (which must outlive what
/// it returns) and returns a function that runs it once and gives the
/// milliseconds it took.
using GraphTimer = std::function<std::function<double()>(
    const Graph &g, const WeightTable &weights)>;

/// A GraphTimer for the graphs of a model whose kept nodes are
/// `kept_onnx` (Model::kept_onnx), on `backend`, with inputs seeded by
/// `seed` and `warmup` runs first. `file` names the model in errors.
GraphTimer staged_timer(std::string kept_onnx, runtime::Backend &backend,
                        int warmup, uint64_t seed, std::string file);

} // namespace quarry::staged
