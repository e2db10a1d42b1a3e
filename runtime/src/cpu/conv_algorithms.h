//===- conv_algorithms.h - Convolutions oneDNN runs by Winograd -*- C++ -*-===//
//
// oneDNN computes some convolutions by Winograd's minimal filtering (3x3
// kernels, stride 1, ungrouped, on processors with AVX-512) in a blocked
// layout of its own. Whether it has such a kernel for one convolution is
// asked of oneDNN itself, once per configuration, rather than restated
// here: its conditions change between versions and processors.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/graph.h"

namespace quarry::runtime::cpu {

/// Whether oneDNN has a Winograd kernel (not its reference code) for the
/// conv2d node `id` of `g` (types known), in float32 without post-ops.
/// Safe from several threads.
bool winograd_runs(const Graph &g, int32_t id);

} // namespace quarry::runtime::cpu
