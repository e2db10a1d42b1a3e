//===- ops/common.h - What every operator definition uses ----*- C++ -*-===//
//
// An operator is a struct (one per file in core/ops/) with:
//   name                      its text name, e.g. "conv2d"
//   min_inputs, max_inputs    arity; max_inputs == kVariadic for concat
//   attrs()                   its AttrSchema, with index constants beside it
//   traits                    algebraic facts and roles (OpTraits)
//   num_outputs(attrs)        how many tensors it produces
//   infer(attrs, inputs)      shape inference: the output types, nullopt when
//                             they cannot be known yet (a constant without a
//                             shape), or quarry::Error naming the operator
//   evaluate<D>(d, attrs, in, out)
//                             the semantics over any Domain D; `out` is
//                             already shaped by infer()
//   macs(attrs, inputs, outputs)
//                             optional: its multiply-adds, for operators
//                             whose arithmetic is not one per result
//                             element (core/flops.h)
// The list of operators is core/op_registry.h; nothing else enumerates them.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/attrs.h"
#include "quarry/core/domain.h"
#include "quarry/core/error.h"
#include "quarry/core/shape.h"

#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace quarry::ops {

inline constexpr int kVariadic = -1;

/// Algebraic facts the optimizer and generator may use.
struct OpTraits {
  bool commutative = false;     ///< inputs 0 and 1 may be swapped
  bool constant = false;        ///< no inputs; value fixed by attributes
  bool variable = false;        ///< a graph input or weight
  bool opaque_in_field = false; ///< uses UnaryFn substitutes in exact domains
  /// Outside the algebra: float semantics only (ops/float_only.h); exact
  /// domains refuse it and rewrites treat it as opaque.
  bool float_only = false;
  /// Kept from an imported model without semantics (ops/opaque.h): never
  /// evaluated or folded, even when every input is static.
  bool uninterpreted = false;
  /// The activation a convolution or matrix product can apply in its place
  /// (their `act` attribute): fusions fold the operator into them.
  Activation activation = Activation::None;
};

using Types = std::vector<TensorType>;
using MaybeTypes = std::optional<Types>;
using InTypes = std::span<const TensorType>;

/// Concatenates anything streamable into a string.
template <class... Args> std::string cat(const Args &...args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

/// Throws the one-line shape error "<op>: <message>".
template <class... Args>
[[noreturn]] void fail(std::string_view op, const Args &...args) {
  throw Error(cat(op, ": ", args...));
}

inline void require_rank(std::string_view op, const char *what,
                         const TensorType &t, int rank) {
  if (t.rank() != rank)
    fail(op, what, " must have rank ", rank, ", got ", t.shape.str());
}

/// One spatial axis of a sliding window (conv2d, pooling).
/// same: out = ceil(in / stride), the window starts (k - 1) / 2 before the
///       input (so enlarging a kernel with a zero border keeps results);
/// valid: out = (in - k) / stride + 1, no padding; needs in >= k.
struct Window {
  int64_t out = 0;
  int64_t pad_before = 0;
};

inline Window window(std::string_view op, const char *axis, int64_t in,
                     int64_t k, int64_t stride, Padding pad) {
  if (k < 1 || stride < 1)
    fail(op, "kernel and stride must be positive, got kernel ", k, " stride ",
         stride, " on ", axis);
  if (pad == Padding::Same)
    return {(in + stride - 1) / stride, (k - 1) / 2};
  if (in < k)
    fail(op, "input ", axis, " ", in, " smaller than kernel ", k,
         " with valid padding");
  return {(in - k) / stride + 1, 0};
}

/// Keeps the boundaries of axis `axis` only when every input agrees on them.
inline SplitRef common_split(InTypes in, int axis) {
  const SplitRef &first = in[0].split(axis);
  for (const auto &t : in.subspan(1))
    if (!same_splits(first, t.split(axis)))
      return nullptr;
  return first;
}

/// Output of an elementwise op: the shape of input 0 and, per axis, the
/// boundaries all inputs share.
inline TensorType elementwise_type(InTypes in) {
  TensorType out(in[0].shape);
  for (int a = 0; a < out.rank(); ++a)
    out.set_split(a, common_split(in, a));
  return out;
}

/// The function an activation applies; nullopt for none.
constexpr std::optional<UnaryFn> activation_fn(Activation act) {
  switch (act) {
  case Activation::None:
    return std::nullopt;
  case Activation::Relu:
    return UnaryFn::Relu;
  case Activation::Sigmoid:
    return UnaryFn::Sigmoid;
  case Activation::Tanh:
    return UnaryFn::Tanh;
  }
  return std::nullopt;
}

/// Applies a fused activation.
template <Domain D>
typename D::Scalar activate(const D &d, Activation act,
                            const typename D::Scalar &v) {
  const std::optional<UnaryFn> fn = activation_fn(act);
  return fn ? d.unary(*fn, v) : v;
}

/// Schema entries several operators share.
inline const AttrSpec kActSpec{"act", AttrKind::Enum, int64_t{0},
                               kActivationNames};
inline const AttrSpec kPadSpec{"pad", AttrKind::Enum, int64_t{0},
                               kPaddingNames};
inline const AttrSpec kStrideSpec{
    "s", AttrKind::IntList, std::vector<int64_t>{1, 1}, {}, 2};
inline const AttrSpec kKernelSpec{
    "k", AttrKind::IntList, std::vector<int64_t>{3, 3}, {}, 2};
/// The shape of a constant or variable; absent in rule patterns.
inline const AttrSpec kShapeSpec{"shape", AttrKind::IntList, {}, {}, -1};

/// The type given by an optional shape attribute, or nullopt when absent.
inline MaybeTypes types_from_shape_attr(std::string_view op, const Attrs &a,
                                        size_t idx) {
  if (!a.has(idx))
    return std::nullopt;
  Shape s(a.list(idx));
  for (int64_t d : s.dims)
    if (d < 1)
      fail(op, "shape dimensions must be positive, got ", s.str());
  return Types{TensorType(std::move(s))};
}

} // namespace quarry::ops
