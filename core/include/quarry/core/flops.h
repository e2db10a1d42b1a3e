//===- flops.h - The arithmetic one node does ------------------*- C++ -*-===//
#pragma once

#include "quarry/core/graph.h"

namespace quarry {

/// Floating-point operations of one evaluation of operator node `id` of
/// `g`: 2 per multiply-add in conv2d, conv_transpose and matmul, one per
/// result element elsewhere; 0 for a node whose types are not known.
int64_t node_flops(const Graph &g, int32_t id);

} // namespace quarry
