//===- fusion_policy.h - Which nodes a backend runs in one kernel -*- C++
//-*-===//
//
// A backend may run an anchor (a convolution or matmul; where its policy
// says so a pooling, a batchnorm, or a concatenation whose chain starts
// with the batchnorm it applies) together with the chain of elementwise nodes
// that only it feeds, as the anchor's epilogue:
//
//   y = relu(ewadd(broadcast[fn=add](conv2d(x, w), b), r))
//       anchor conv2d, epilogue: +b (per channel), +r (full), relu
//
// A node joins the chain when the value so far has no other reader and is
// no graph output, and the node keeps the value's shape: an activation, or
// add/sub/mul/div/max/min with one other operand that is a scalar, one
// value per channel (axis 1 of a 4-D result, the last axis of a matmul's)
// or of the result's own shape. A matmul's result is row-major, so a
// reshape that keeps its last axis joins too, as a view (an N-D product
// imported as reshape, matmul, reshape, before its bias); a chain does not
// end on one. A binary node joins through its second
// operand only when its first could not be a chain's end (it is static,
// read elsewhere, or made by an operator no chain holds), so each node has
// at most one chain it may join and the chains do not depend on the order
// the nodes are listed in. Which anchors and operand kinds a backend
// accepts is its FusionPolicy, and which pointwise functions it applies
// (a pointwise node, or a composite the backend found: GELU written as
// Div, Erf, Add, Mul, Mul, composites.h).
//
// The chain walk reads the graph through a FusionView, so the optimizer can
// ask it of a graph it has not built (a rewrite previewed on its host).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/graph.h"
#include "quarry/core/ops/broadcast.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace quarry::runtime {

/// How a binary post-op's other operand spreads over the result.
enum class Spread { Scalar, PerChannel, Full };

/// One operation of an epilogue, applied to the value computed so far.
struct PostOp {
  /// View: the value seen in another shape, the same bytes (no operation).
  /// Pointwise: a pointwise function (a node, or a composite of several,
  /// composites.h). BatchNorm: a batchnorm of static scale, bias, mean and
  /// variance (`statics`, in that order, and `eps`), folded into the
  /// weights and bias of the convolution before it, or applied per channel
  /// as a concatenation writes its result (`folded` false).
  enum class Kind {
    Unary,
    Binary,
    View,
    Pointwise,
    BatchNorm
  } kind = Kind::Unary;
  UnaryFn unary = UnaryFn::Relu; ///< Unary: relu, sigmoid or tanh
  ops::BroadcastFn binary = ops::BroadcastFn::Add; ///< Binary
  ValueRef operand{};           ///< Binary: the other operand
  bool operand_static = false;  ///< Binary: computed from weights only
  Spread spread = Spread::Full; ///< Binary
  /// Binary add of a full computed operand that nothing reads afterwards:
  /// the backend may compute the result into the operand's own buffer and
  /// accumulate (oneDNN's sum post-op) instead of reading it separately.
  bool accumulate = false;
  ops::PointwiseFn pointwise = ops::PointwiseFn::Gelu; ///< Pointwise
  float alpha = 0, beta = 0;                           ///< Pointwise
  int32_t node = -1; ///< the graph node it comes from
  /// A composite's nodes before `node`, which the step runs as well.
  std::vector<int32_t> inner;
  std::vector<ValueRef> statics; ///< BatchNorm
  double eps = 0;                ///< BatchNorm
  bool folded = true;            ///< BatchNorm: into a convolution's weights

  /// The values it reads besides the chain's own, as the step's operands
  /// after the anchor's: Binary its operand, BatchNorm its statics.
  std::vector<ValueRef> operands() const;

  /// "relu", "add(per-channel)", "view", ...
  std::string str() const;
};

/// What a backend can run as an epilogue.
struct FusionPolicy {
  bool conv2d = true;     ///< conv2d anchors
  bool matmul = true;     ///< matmul anchors
  bool pool2d = false;    ///< pool2d_avg and pool2d_max anchors
  bool batchnorm = false; ///< batchnorm anchors (what accept allows)
  /// Concatenations along the channels of 4-D values as anchors, whose
  /// chain starts with a batchnorm of static statistics (a densely
  /// connected network's normalization of each concatenation), applied as
  /// the result is written.
  bool concat = false;
  /// A batchnorm of static values right after a convolution of static
  /// weights (and its static per-channel bias) joins the chain, folded
  /// into the weights (as ONNX Runtime does when it loads a model).
  bool batchnorm_folds = false;
  bool unary = true;          ///< relu, sigmoid, tanh
  bool binary_static = true;  ///< binary post-ops with a static operand
  bool binary_dynamic = true; ///< binary post-ops with a computed operand
  bool enabled = true;        ///< false: every node alone
  /// Which pointwise functions the backend applies as a post-op; unset:
  /// none.
  std::function<bool(ops::PointwiseFn)> pointwise;
  /// How many of a chain's post-ops (own activation included) the backend
  /// runs in the anchor's kernel: a prefix, the rest run alone. Unset:
  /// all of them.
  std::function<size_t(const Node &anchor, const std::vector<PostOp> &post)>
      accept;

  /// Whether `n` may start a chain.
  bool is_anchor(const Node &n) const;
};

/// What the chain walk reads of a graph, built or not. Node ids are the
/// view's own; a value is (node, output).
class FusionView {
public:
  virtual ~FusionView() = default;
  virtual const Node &node(int32_t id) const = 0;
  /// The value's shape (it is computed: its type is known).
  virtual const Shape &shape(ValueRef v) const = 0;
  /// Whether the value is computed from weights and constants alone.
  virtual bool is_static(ValueRef v) const = 0;
  /// Whether the node runs per inference: live, not static, no variable.
  virtual bool is_step(int32_t id) const = 0;
  /// The step that reads `v`, when exactly one operand of one step reads it
  /// and it is no graph output; -1 otherwise.
  virtual int32_t sole_reader(ValueRef v) const = 0;
};

/// The anchor's activation attribute as a post-op list (empty for none).
std::vector<PostOp> own_activation(const Node &anchor, int32_t id);

/// The epilogue `anchor` runs under `policy`: its own activation, then the
/// post-ops of the nodes it absorbs, in order (the accepted prefix). The
/// absorbed nodes are the Binary/Unary entries' `node`s after the own
/// activation. Empty when `anchor` is no anchor or fusion is off.
std::vector<PostOp> fused_chain(const FusionView &g, int32_t anchor,
                                const FusionPolicy &policy);

/// Whether `n`'s kind can be a post-op at all (an activation, a binary
/// add/mul/broadcast other than pow, a pointwise function, or a reshape as
/// a matmul chain's view): the kinds a chain passes through.
bool may_join_chain(const Node &n);

/// How `operand` spreads over `result` in an epilogue of an anchor of kind
/// `anchor` (matmul: channels on the last axis; the others' on axis 1);
/// nullopt when it would not keep the result's shape or fits no Spread.
std::optional<Spread> spread_of(OpKind anchor, const Shape &result,
                                const Shape &operand);

} // namespace quarry::runtime
