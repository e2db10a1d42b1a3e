//===- fusion.h - Which nodes a backend runs as one kernel -----*- C++ -*-===//
//
// Lowering, not rewriting: the graph the optimizer sees is unchanged, but a
// backend runs an anchor and the chain it absorbs (fusion_policy.h) as one
// step. The fused step runs where its last node ran, so the other operands
// are ready by then.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/runtime/fusion_policy.h"
#include "quarry/runtime/plan.h"

#include <vector>

namespace quarry::runtime {

/// One step as a backend runs it: a node, maybe with an epilogue.
struct FusedStep {
  int32_t anchor = -1;
  /// The anchor's own activation (conv2d/matmul `act`) first, then the
  /// absorbed nodes' operations, in order.
  std::vector<PostOp> post;
  /// Graph nodes this step runs: the anchor, then the absorbed ones.
  std::vector<int32_t> nodes;
  /// The value the step produces: the last absorbed node's, or the anchor's.
  ValueRef result() const { return {nodes.back(), 0}; }
  bool fused() const { return nodes.size() > 1; }
};

/// The plan's steps grouped into fused steps, in execution order. Nodes of
/// `p.steps` appear in exactly one FusedStep.
std::vector<FusedStep> fuse_steps(const Graph &g, const Plan &p,
                                  const FusionPolicy &policy);

/// Per node of `g`: whether fuse_steps() on plan_shapes(g) absorbs it into
/// another node's step.
std::vector<bool> absorbed_nodes(const Graph &g, const FusionPolicy &policy);

/// The order `steps` run in, as plan.h's assign_buffers takes it: each
/// step reads its anchor's operands and its post-ops' and writes its
/// result (all of the anchor's results when it runs alone).
std::vector<ScheduledStep> schedule_of(const Graph &g, const Plan &p,
                                       const std::vector<FusedStep> &steps);

} // namespace quarry::runtime
