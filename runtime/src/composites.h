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
//   LayerNorm  d = x - mean(x); y = d / sqrt(mean(d^2) + eps) * g + b
//         (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add: a
//         LayerNormalization exported before opset 17)
//
// Several passes over memory where one kernel would do. A backend may run
// such a composite as the one operator it computes (alone, or, for a
// pointwise function, as a post-op of the anchor before it, fusion.h).
// Lowering, not rewriting: the graph and the optimizer's view of it are
// unchanged. Matching needs the constants' values (sqrt 2, 1, 0.5), so it is
// done on a plan with its static values folded (make_plan), not on a graph's
// shapes alone.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/op_registry.h"
#include "quarry/core/ops/scalar_fns.h"
#include "quarry/runtime/plan.h"

#include <map>
#include <optional>
#include <vector>

namespace quarry::runtime {

struct Composite {
  /// What the nodes compute, as one node named and typed as the last:
  /// pointwise[fn](x), or layer_norm[axis eps](x, scale, bias).
  Node as;
  /// Its nodes in execution order, the one computing y last.
  std::vector<int32_t> nodes;
  /// Whether the composite's nodes are all that read x (and x is no graph
  /// output): then a pointwise one may join the chain of the anchor that
  /// computes x.
  bool reads_x_alone = false;

  /// The value it is a function of.
  ValueRef x() const { return as.inputs.at(0); }
  /// Its pointwise function, when it is one.
  std::optional<ops::PointwiseFn> pointwise() const {
    if (as.kind != OpKind::Pointwise)
      return std::nullopt;
    return static_cast<ops::PointwiseFn>(as.attrs.i(ops::Pointwise::kFn));
  }
};

/// The composites among `p`'s steps, by their first node. Their inner
/// values are read by the composite alone and are no graph outputs.
using Composites = std::map<int32_t, Composite>;
Composites find_composites(const Graph &g, const Plan &p);

/// What a quantization then its dequantization (a QDQ pair, as ONNX's
/// import writes it: onnx_import_quantized.cc) leaves,
///
///   y = (min(max(round(x / scale) + zero, lo), hi) - zero) * scale
///
/// every element (q - zero) * scale for an integer q in [lo, hi]: a kernel
/// may hold such a value as the integers q - zero, exactly (an int8
/// convolution). Without the product by the scale, the integers q - zero
/// themselves (ConvInteger's and MatMulInteger's operands, quantized by a
/// DynamicQuantizeLinear whose scale and zero point are computed): scale 1.
struct QuantizationGrid {
  float scale = 1, zero = 0, lo = 0, hi = 0;
  /// Where the zero point is computed (a DynamicQuantizeLinear's): the
  /// value holding it, and `zero` unknown before the model runs.
  std::optional<ValueRef> computed_zero;
};

/// The grid `v` lies on, when `v` is such a value (or a reshape of it):
/// one zero point on both sides, static or computed, a scalar (either may
/// be left out when 0), and a static scale where the integers are
/// dequantized; nullopt otherwise.
std::optional<QuantizationGrid> quantization_grid(const Graph &g, const Plan &p,
                                                  ValueRef v);

} // namespace quarry::runtime
