//===- layout_trial.h - Every convolution in one layout -----*- C++ -*-===//
//
// A backend may run convolutions in another activation layout than its own
// choice (a cpu's channels in blocks of 16 rather than channels last). That
// pays, where it pays, only for a whole graph: one convolution in another
// layout costs a reorder on each side of it, which no single choice in the
// search repays. So after selection the chosen graph is timed against
// itself with every convolution in each layout the backend offers, in turn,
// as a candidate is timed against the original: kept when its median is
// SelectOptions::min_gain below, steadily, again when both are prepared
// afresh, and within SelectOptions::choice_tolerance of the reference where
// the backend that runs it is given. The layout kept is each convolution's
// `layout` (ops/conv2d.h), so it travels with the graph.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/optimizer/optimize.h"

namespace quarry::opt {

/// `g` with every conv2d that names no layout in `layout`.
Graph with_layout(const Graph &g, ops::ConvLayout layout);

/// Times `select.layouts` on `r.model` (the graph selection chose, folded)
/// as above, appending one LayoutTrial each to `r.layouts`; the first kept
/// replaces `r.model`'s graph and ends the trials. Nothing where the graph
/// has no convolution or selection has no timer.
void try_layouts(OptimizeResult &r, const SelectOptions &select, uint64_t seed);

} // namespace quarry::opt
