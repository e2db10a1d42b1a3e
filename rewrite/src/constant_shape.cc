//===- constant_shape.cc - Shapes of constants in rule targets ------------===//
#include "quarry/rewrite/constant_shape.h"

namespace quarry::rewrite {

namespace {

const Shape *other(std::span<const TensorType *const> operands, int index) {
  const int o = 1 - index;
  if (operands.size() != 2 || !operands[o])
    return nullptr;
  return &operands[o]->shape;
}

} // namespace

std::optional<Shape>
constant_shape(OpKind kind, const Attrs &attrs, OpKind consumer, int index,
               std::span<const TensorType *const> operands) {
  const Shape *peer = other(operands, index);
  if (!peer)
    return std::nullopt;
  switch (consumer) {
  case OpKind::EwAdd:
  case OpKind::EwMul:
    // All ones (or any constant) next to a tensor of the same shape.
    return *peer;
  case OpKind::ScalarMul:
    return index == 1 ? std::optional<Shape>(Shape{}) : std::nullopt;
  case OpKind::MatMul:
    // The identity matrix on the side of the shared dimension.
    if (kind != OpKind::ConstImm || peer->rank() != 2)
      return std::nullopt;
    return index == 1 ? Shape{(*peer)[1], (*peer)[1]}
                      : Shape{(*peer)[0], (*peer)[0]};
  case OpKind::Conv2D:
    if (index != 1 || peer->rank() != 4)
      return std::nullopt;
    // const_pool is a depthwise kernel; const_iconv the identity
    // convolution, one output channel per input channel.
    if (kind != OpKind::ConstPool && kind != OpKind::ConstIConv)
      return std::nullopt;
    {
      const auto &k = attrs.list(ops::ConstPool::kKernel);
      const int64_t c = (*peer)[1];
      return Shape{c, kind == OpKind::ConstPool ? 1 : c, k[0], k[1]};
    }
  default:
    return std::nullopt;
  }
}

} // namespace quarry::rewrite
