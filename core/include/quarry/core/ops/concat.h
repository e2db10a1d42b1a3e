//===- ops/concat.h - Concatenation along one axis -----------*- C++ -*-===//
//
// concat[axis=a](x1, ..., xn), n >= 2: all dimensions but `a` equal. The
// result records the boundaries on axis a (left-nested for n > 2) so that a
// later split without sizes can undo it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/common.h"

namespace quarry::ops {

/// Strided copy of a block of `inner` contiguous elements repeated `outer`
/// times, used by concat and split, which move data between a tensor and its
/// slices along an axis.
struct AxisBlocks {
  int64_t outer = 1; ///< product of dimensions before the axis
  int64_t inner = 1; ///< product of dimensions after the axis

  AxisBlocks(const Shape &s, int axis) {
    for (int i = 0; i < axis; ++i)
      outer *= s[i];
    for (int i = axis + 1; i < s.rank(); ++i)
      inner *= s[i];
  }
};

struct Concat {
  static constexpr std::string_view name = "concat";
  static constexpr int min_inputs = 2, max_inputs = kVariadic;
  enum : size_t { kAxis };
  static AttrSchema attrs() {
    static const AttrSpec specs[] = {{"axis", AttrKind::Int, int64_t{0}}};
    return specs;
  }
  static constexpr OpTraits traits{};
  static int num_outputs(const Attrs &) { return 1; }

  static MaybeTypes infer(const Attrs &a, InTypes in) {
    const int64_t axis = a.i(kAxis);
    const Shape &first = in[0].shape;
    if (axis < 0 || axis >= first.rank())
      fail(name, "axis ", axis, " out of range for ", first.str());
    Shape s = first;
    SplitRef tree = in[0].split(static_cast<int>(axis));
    for (size_t i = 1; i < in.size(); ++i) {
      const Shape &t = in[i].shape;
      bool ok = t.rank() == first.rank();
      for (int d = 0; ok && d < t.rank(); ++d)
        ok = d == axis || t[d] == first[d];
      if (!ok)
        fail(name, "operand ", i, " shape ", t.str(), " does not match ",
             first.str(), " outside axis ", axis);
      auto node = std::make_shared<SplitTree>();
      node->left = s[axis];
      node->lhs = tree;
      node->rhs = in[i].split(static_cast<int>(axis));
      tree = std::move(node);
      s[axis] += t[axis];
    }
    TensorType out(s);
    for (int d = 0; d < s.rank(); ++d)
      out.set_split(d, d == axis ? tree : common_split(in, d));
    return Types{out};
  }

  template <Domain D>
  static void evaluate(const D &, const Attrs &a, OpInputs<D> in,
                       OpOutputs<D> out) {
    const int axis = static_cast<int>(a.i(kAxis));
    auto &y = out[0];
    const AxisBlocks yb(y.shape, axis);
    int64_t offset = 0; // along the axis
    for (const auto *x : in) {
      const int64_t len = x->shape[axis] * yb.inner;
      for (int64_t o = 0; o < yb.outer; ++o)
        for (int64_t i = 0; i < len; ++i)
          y[o * y.shape[axis] * yb.inner + offset * yb.inner + i] =
              (*x)[o * len + i];
      offset += x->shape[axis];
    }
  }
};

} // namespace quarry::ops
