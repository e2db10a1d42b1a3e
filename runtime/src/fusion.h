//===- fusion.h - Which nodes a backend runs as one kernel -----*- C++ -*-===//
//
// Lowering, not rewriting: the graph the optimizer sees is unchanged, but a
// backend runs an anchor and the chain it absorbs (fusion_policy.h) as one
// step. The fused step runs where its last node ran, so the other operands
// are ready by then.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "composites.h"
#include "quarry/runtime/fusion_policy.h"
#include "quarry/runtime/plan.h"

#include <optional>
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
  /// A composite run alone: the node it runs in place of `nodes`, a
  /// pointwise function of the composite's x, named and typed as its last
  /// node (the anchor then). Unset: the step runs its anchor.
  std::optional<Node> as;
};

/// The node step `s` runs: its composite's, else its anchor.
inline const Node &step_node(const Graph &g, const FusedStep &s) {
  return s.as ? *s.as : g.node(s.anchor);
}

/// The plan's steps grouped into fused steps, in execution order. Nodes of
/// `p.steps` appear in exactly one FusedStep. With `composites` (found on
/// `p`), each runs as its pointwise function: a post-op of the chain that
/// computes its x where the policy applies the function there, else a step
/// of its own.
std::vector<FusedStep> fuse_steps(const Graph &g, const Plan &p,
                                  const FusionPolicy &policy,
                                  const Composites *composites = nullptr);

/// Per node of `g`: whether fuse_steps() on plan_shapes(g) absorbs it into
/// another node's step.
std::vector<bool> absorbed_nodes(const Graph &g, const FusionPolicy &policy);

/// The order `steps` run in, as plan.h's assign_buffers takes it: each
/// step reads its anchor's operands and its post-ops' and writes its
/// result (all of the anchor's results when it runs alone).
std::vector<ScheduledStep> schedule_of(const Graph &g, const Plan &p,
                                       const std::vector<FusedStep> &steps);

} // namespace quarry::runtime
