//===- ops/split.h - Split along one axis --------------------*- C++ -*-===//
//
// split[axis=a sizes=s1,...,sk](x) cuts x into k parts of the given extents.
// Without sizes it cuts into two at the most recent concat boundary recorded
// on axis a (TASO's split tree): split(concat(x, y)) gives back x and y.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/concat.h"

namespace quarry::ops {

struct Split {
  static constexpr std::string_view name = "split";
  static constexpr int min_inputs = 1, max_inputs = 1;
  enum : size_t { kAxis, kSizes };
  static AttrSchema attrs() {
    static const AttrSpec specs[] = {{"axis", AttrKind::Int, int64_t{0}},
                                     {"sizes", AttrKind::IntList, {}}};
    return specs;
  }
  static constexpr OpTraits traits{};
  static int num_outputs(const Attrs &a) {
    return a.has(kSizes) ? static_cast<int>(a.list(kSizes).size()) : 2;
  }

  static MaybeTypes infer(const Attrs &a, InTypes in) {
    const TensorType &x = in[0];
    const int64_t axis = a.i(kAxis);
    if (axis < 0 || axis >= x.rank())
      fail(name, "axis ", axis, " out of range for ", x.shape.str());
    const int ax = static_cast<int>(axis);
    std::vector<int64_t> sizes;
    std::vector<SplitRef> trees;
    if (a.has(kSizes)) {
      sizes = a.list(kSizes);
      int64_t total = 0;
      for (int64_t s : sizes) {
        if (s < 1)
          fail(name, "sizes must be positive");
        total += s;
      }
      if (sizes.size() < 2 || total != x.shape[ax])
        fail(name, "sizes must be at least two parts adding up to ",
             x.shape[ax], " (dimension ", ax, " of ", x.shape.str(), ")");
      trees.assign(sizes.size(), nullptr);
    } else {
      const SplitRef &t = x.split(ax);
      if (!t)
        fail(name, "no concat boundary recorded on axis ", ax, " of ",
             x.shape.str(), "; give sizes=");
      sizes = {t->left, x.shape[ax] - t->left};
      trees = {t->lhs, t->rhs};
    }
    Types outs;
    for (size_t i = 0; i < sizes.size(); ++i) {
      TensorType o = x;
      o.shape[ax] = sizes[i];
      o.set_split(ax, trees[i]);
      outs.push_back(std::move(o));
    }
    return outs;
  }

  template <Domain D>
  static void evaluate(const D &, const Attrs &a, OpInputs<D> in,
                       OpOutputs<D> out) {
    const int axis = static_cast<int>(a.i(kAxis));
    const auto &x = *in[0];
    const AxisBlocks xb(x.shape, axis);
    int64_t offset = 0;
    for (auto &y : out) {
      const int64_t len = y.shape[axis] * xb.inner;
      for (int64_t o = 0; o < xb.outer; ++o)
        for (int64_t i = 0; i < len; ++i)
          y[o * len + i] =
              x[o * x.shape[axis] * xb.inner + offset * xb.inner + i];
      offset += y.shape[axis];
    }
  }
};

} // namespace quarry::ops
