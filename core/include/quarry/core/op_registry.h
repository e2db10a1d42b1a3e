//===- op_registry.h - The one list of operators --------------*- C++ -*-===//
//
// QUARRY_OPS is the only place that enumerates operators. It generates
// OpKind, the name table and dispatch(); every interpretation (evaluation in
// any domain, shape inference, text, serialization, FLOP counts, fusion
// roles) goes through it, so adding an operator means writing
// core/ops/<op>.h and one line here (and its ONNX form in the exporter,
// models/src/onnx_export_nodes.cc).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/batchnorm.h"
#include "quarry/core/ops/broadcast.h"
#include "quarry/core/ops/concat.h"
#include "quarry/core/ops/constants.h"
#include "quarry/core/ops/conv2d.h"
#include "quarry/core/ops/conv_transpose.h"
#include "quarry/core/ops/elementwise.h"
#include "quarry/core/ops/enlarge.h"
#include "quarry/core/ops/gather_elements.h"
#include "quarry/core/ops/grid_sample.h"
#include "quarry/core/ops/hardmax.h"
#include "quarry/core/ops/layer_norm.h"
#include "quarry/core/ops/matmul.h"
#include "quarry/core/ops/opaque.h"
#include "quarry/core/ops/pad.h"
#include "quarry/core/ops/pointwise.h"
#include "quarry/core/ops/pool2d.h"
#include "quarry/core/ops/pool2d_explicit.h"
#include "quarry/core/ops/reduce.h"
#include "quarry/core/ops/reduce_mean.h"
#include "quarry/core/ops/reshape.h"
#include "quarry/core/ops/resize.h"
#include "quarry/core/ops/scalar_mul.h"
#include "quarry/core/ops/slice.h"
#include "quarry/core/ops/softmax.h"
#include "quarry/core/ops/split.h"
#include "quarry/core/ops/transpose.h"
#include "quarry/core/ops/unary.h"
#include "quarry/core/ops/variable.h"
#include "quarry/core/ops/where.h"

#include <optional>
#include <string_view>
#include <type_traits>

namespace quarry {

// X(enumerator, definition struct)
#define QUARRY_OPS(X)                                                          \
  X(Input, ops::Input)                                                         \
  X(Weight, ops::Weight)                                                       \
  X(MatMul, ops::MatMul)                                                       \
  X(Conv2D, ops::Conv2D)                                                       \
  X(Pool2DAvg, ops::Pool2DAvg)                                                 \
  X(Pool2DMax, ops::Pool2DMax)                                                 \
  X(Relu, ops::Relu)                                                           \
  X(Sigmoid, ops::Sigmoid)                                                     \
  X(Tanh, ops::Tanh)                                                           \
  X(EwAdd, ops::EwAdd)                                                         \
  X(EwMul, ops::EwMul)                                                         \
  X(ScalarMul, ops::ScalarMul)                                                 \
  X(Concat, ops::Concat)                                                       \
  X(Split, ops::Split)                                                         \
  X(Transpose, ops::Transpose)                                                 \
  X(Enlarge, ops::Enlarge)                                                     \
  X(ConstPool, ops::ConstPool)                                                 \
  X(ConstIConv, ops::ConstIConv)                                               \
  X(ConstImm, ops::ConstImm)                                                   \
  X(ConstOne, ops::ConstOne)                                                   \
  X(BatchNorm, ops::BatchNorm)                                                 \
  X(Reshape, ops::Reshape)                                                     \
  /* Float-only operators of imported networks (ops/float_only.h). */          \
  X(Pointwise, ops::Pointwise)                                                 \
  X(Broadcast, ops::Broadcast)                                                 \
  X(Softmax, ops::Softmax)                                                     \
  X(ReduceMean, ops::ReduceMean)                                               \
  X(Reduce, ops::Reduce)                                                       \
  X(Slice, ops::Slice)                                                         \
  X(Pad, ops::Pad)                                                             \
  X(Pool2DExplicit, ops::Pool2DExplicit)                                       \
  X(ConvTranspose, ops::ConvTranspose)                                         \
  X(Resize, ops::Resize)                                                       \
  /* Kept from an imported model, uninterpreted (ops/opaque.h). */             \
  X(Opaque, ops::Opaque)                                                       \
  /* Later additions go last, so earlier kinds keep their numbers. */          \
  X(Hardmax, ops::Hardmax)                                                     \
  X(GridSample, ops::GridSample)                                               \
  X(Where, ops::Where)                                                         \
  X(LayerNorm, ops::LayerNorm)                                                 \
  X(GatherElements, ops::GatherElements)

enum class OpKind : uint8_t {
#define QUARRY_ENUM(kind, def) kind,
  QUARRY_OPS(QUARRY_ENUM)
#undef QUARRY_ENUM
};

#define QUARRY_COUNT(kind, def) +1
inline constexpr int kNumOps = 0 QUARRY_OPS(QUARRY_COUNT);
#undef QUARRY_COUNT

/// Calls f(std::type_identity<Def>{}) with the definition struct of `kind`.
template <class F> decltype(auto) dispatch(OpKind kind, F &&f) {
  switch (kind) {
#define QUARRY_CASE(kind, def)                                                 \
  case OpKind::kind:                                                           \
    return f(std::type_identity<def>{});
    QUARRY_OPS(QUARRY_CASE)
#undef QUARRY_CASE
  }
  __builtin_unreachable();
}

/// What every client needs to know of an operator without its semantics.
struct OpInfo {
  OpKind kind;
  std::string_view name;
  int min_inputs;
  int max_inputs; ///< ops::kVariadic for no limit
  AttrSchema attrs;
  ops::OpTraits traits;
};

const OpInfo &op_info(OpKind kind);
/// The operator named `name` ("conv2d"), or nullopt.
std::optional<OpKind> op_from_name(std::string_view name);
inline std::string_view op_name(OpKind kind) { return op_info(kind).name; }

/// Number of outputs of `kind` with these attributes.
int op_num_outputs(OpKind kind, const Attrs &attrs);

/// Shape inference for one node; nullopt when the types are not yet known
/// (a constant or variable without a shape).
ops::MaybeTypes infer_types(OpKind kind, const Attrs &attrs,
                            std::span<const TensorType> inputs);

} // namespace quarry
