//===- constant_shape.h - Shapes of constants in rule targets --*- C++ -*-===//
//
// Rule patterns leave constants (const_pool, const_iconv, const_imm,
// const_one) without a shape: it follows from the operator that uses them.
// When a rewrite instantiates one, its shape is read off the consumer's
// other operand, as TASO does when it creates a constant during a rewrite.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/graph.h"

#include <optional>
#include <span>

namespace quarry::rewrite {

/// The shape constant `kind` (with `attrs`) must have as operand `index` of
/// `consumer`, whose other operands have `operands` types (null at `index`);
/// nullopt when the context does not determine it.
std::optional<Shape>
constant_shape(OpKind kind, const Attrs &attrs, OpKind consumer, int index,
               std::span<const TensorType *const> operands);

} // namespace quarry::rewrite
