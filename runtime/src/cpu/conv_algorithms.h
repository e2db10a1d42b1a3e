//===- conv_algorithms.h - The ways a cpu convolution can run --*- C++ -*-===//
//
// oneDNN computes some convolutions by Winograd's minimal filtering (3x3
// kernels, stride 1, ungrouped, on processors with AVX-512) in a blocked
// layout of its own. Whether it has such a kernel for one convolution is
// asked of oneDNN itself, once per configuration, rather than restated
// here: its conditions change between versions and processors.
//
// A 1x1 convolution at stride 1 is, in nhwc, a matrix product of its pixels
// by its transposed weights; oneDNN's matmul and its 1x1 convolution are
// different kernels, each faster on some shapes, so which runs is measured.
//
// The activation layout a convolution runs in is oneDNN's choice unless the
// backend was told one for every convolution (--layout) or the node names
// one (its `layout`, which the optimizer sets on a whole graph it measured
// faster so).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/graph.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <optional>

namespace quarry::runtime::cpu {

/// Whether oneDNN has a Winograd kernel (not its reference code) for the
/// conv2d node `id` of `g` (types known), in float32 without post-ops.
/// Safe from several threads.
bool winograd_runs(const Graph &g, int32_t id);

/// Whether a convolution of geometry `g` at strides `s` is one matrix
/// product [n*h*w, c] x [c, co] of its channels-last pixels: one tap,
/// nothing padded, every pixel read, one group.
bool is_pixel_product(const ops::Conv2D::Geometry &g,
                      const std::vector<int64_t> &s);

/// is_pixel_product for the conv2d node `id` of `g` (types known).
bool is_pixel_product(const Graph &g, int32_t id);

/// The layout conv2d node `n` is run in where one is set: `backend`'s (a
/// layout forced on every convolution), else the one `n` names; nullopt
/// where neither is.
std::optional<dnnl::memory::format_tag>
forced_layout(const std::optional<dnnl::memory::format_tag> &backend,
              const Node &n);

} // namespace quarry::runtime::cpu
