//===- onnx_export_fusions.h - ONNX operators export writes whole -*- C++
//-*-===//
//
// Import writes some ONNX operators as several of quarry's: Conv(x, w, b)
// as add(conv2d(x, w), b) with the bias [C,1,1], Gemm as a matmul of
// transposed operands and an add. Where quarry's graph still holds such a
// group as import wrote it (no rewrite took it apart), export writes the
// one ONNX operator again, as the model had it, not its pieces.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/graph.h"

#include <map>
#include <set>

namespace quarry::onnx_io {

/// Gemm(A, B, C) as export writes it at its add: A and B are the matmul's
/// operands before the transposes, if any, that it skips.
struct GemmGroup {
  ValueRef a, b, c;
  bool trans_a = false, trans_b = false;
};

struct ExportFusions {
  /// Convolutions whose result a per-channel bias weight is added to, with
  /// the adding node: written as Conv with the bias (of [C]) as input 2.
  std::map<int32_t, int32_t> conv_bias;
  /// Those bias weights, written as [C].
  std::set<int32_t> conv_bias_weights;
  /// Gemm groups by the id of their add, written as one Gemm there.
  std::map<int32_t, GemmGroup> gemm;
  /// Nodes written as part of another (the adds of conv_bias, the matmuls
  /// and transposes of gemm): export writes nothing for them.
  std::set<int32_t> absorbed;
};

/// The groups of `g` export writes as one ONNX operator. A node is taken
/// into a group only when nothing else reads it (not a graph output
/// either), it has no fused activation, and it is not one of `taken`
/// (written as part of a recorded node, onnx_restorable.h).
ExportFusions find_export_fusions(const Graph &g,
                                  const std::set<int32_t> &taken = {});

} // namespace quarry::onnx_io
