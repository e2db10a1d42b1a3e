//===- composites.h - Pointwise functions written as several nodes -*- C++
//-*-===//
//
// Exporters write some activations as the arithmetic that defines them:
//
//   GELU  y = x * (1 + erf(x / sqrt 2)) * 0.5   (Div, Erf, Add, Mul, Mul;
//         or x * 0.5 first, or x * (1 / sqrt 2), or a final / 2)
//   SiLU  y = x * sigmoid(x)                     (Sigmoid, Mul)
//   HardSwish  y = x * clip(x + 3, 0, 6) / 6     (Add, Clip, Mul, Div; or
//         the division first), or x * hard_sigmoid(x) (alpha 1/6, beta 1/2)
//
// Five passes over memory where one eltwise would do. A backend may run
// such a composite as the one pointwise function it computes (alone, or as
// a post-op of the anchor before it, fusion.h). Lowering, not rewriting:
// the graph and the optimizer's view of it are unchanged. Matching needs
// the constants' values (sqrt 2, 1, 0.5), so it is done on a plan with its
// static values folded (make_plan), not on a graph's shapes alone.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/scalar_fns.h"
#include "quarry/runtime/plan.h"

#include <map>
#include <vector>

namespace quarry::runtime {

struct Composite {
  ops::PointwiseFn fn = ops::PointwiseFn::Gelu;
  /// The value the function is of.
  ValueRef x;
  /// Its nodes in execution order, the one computing y last.
  std::vector<int32_t> nodes;
  /// Whether the composite's nodes are all that read x (and x is no graph
  /// output): then it may join the chain of the anchor that computes x.
  bool reads_x_alone = false;
};

/// The composites among `p`'s steps, by their first node. Their inner
/// values are read by the composite alone and are no graph outputs.
using Composites = std::map<int32_t, Composite>;
Composites find_composites(const Graph &g, const Plan &p);

} // namespace quarry::runtime
