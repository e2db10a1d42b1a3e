//===- fusion.h - Which nodes a backend runs as one kernel -----*- C++ -*-===//
//
// Lowering, not rewriting: the graph the optimizer sees is unchanged, but a
// backend may run an anchor (a convolution or matmul) together with the
// chain of elementwise nodes that only it feeds, as the anchor's epilogue:
//
//   y = relu(ewadd(broadcast[fn=add](conv2d(x, w), b), r))
//       anchor conv2d, epilogue: +b (per channel), +r (full), relu
//
// A node joins the chain when the value so far has no other reader and is
// no graph output, and the node keeps the value's shape: an activation, or
// add/sub/mul/div/max/min with one other operand that is a scalar, one
// value per channel (axis 1 of a 4-D result, the last axis of a matmul's)
// or of the result's own shape. The fused step runs where its last node
// ran, so the other operands are ready by then. Which anchors and operand
// kinds a backend accepts is its FusionPolicy.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/broadcast.h"
#include "quarry/runtime/plan.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace quarry::runtime {

/// How a binary post-op's other operand spreads over the result.
enum class Spread { Scalar, PerChannel, Full };

/// One operation of an epilogue, applied to the value computed so far.
struct PostOp {
  enum class Kind { Unary, Binary } kind = Kind::Unary;
  UnaryFn unary = UnaryFn::Relu; ///< Unary: relu, sigmoid or tanh
  ops::BroadcastFn binary = ops::BroadcastFn::Add; ///< Binary
  ValueRef operand{};           ///< Binary: the other operand
  bool operand_static = false;  ///< Binary: computed from weights only
  Spread spread = Spread::Full; ///< Binary
  /// Binary add of a full computed operand that nothing reads afterwards:
  /// the backend may compute the result into the operand's own buffer and
  /// accumulate (oneDNN's sum post-op) instead of reading it separately.
  bool accumulate = false;
  int32_t node = -1; ///< the graph node it comes from

  /// "relu", "add(per-channel)", ...
  std::string str() const;
};

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

/// What a backend can run as an epilogue.
struct FusionPolicy {
  bool conv2d = true;         ///< conv2d anchors
  bool matmul = true;         ///< matmul anchors
  bool unary = true;          ///< relu, sigmoid, tanh
  bool binary_static = true;  ///< binary post-ops with a static operand
  bool binary_dynamic = true; ///< binary post-ops with a computed operand
  bool enabled = true;        ///< false: every node alone
  /// How many of a chain's post-ops (own activation included) the backend
  /// runs in the anchor's kernel: a prefix, the rest run alone. Unset:
  /// all of them.
  std::function<size_t(const Node &anchor, const std::vector<PostOp> &post)>
      accept;
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

/// The anchor's activation attribute as a post-op list (empty for none),
/// for an anchor that is lowered alone.
std::vector<PostOp> own_activation(const Graph &g, int32_t anchor);

/// How `operand` spreads over `result` in an epilogue of an anchor of kind
/// `anchor` (conv2d: channels on axis 1; matmul: the last axis); nullopt
/// when it would not keep the result's shape or fits no Spread.
std::optional<Spread> spread_of(OpKind anchor, const Shape &result,
                                const Shape &operand);

} // namespace quarry::runtime
