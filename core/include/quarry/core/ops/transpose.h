//===- ops/transpose.h - Axis permutation --------------------*- C++ -*-===//
//
// transpose[perm=p0,...](x): output axis i is input axis p_i. `shuffle`
// (TASO's outshuffle) only says whether the result is laid out physically
// permuted; it does not change values and matters only to cost models.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/common.h"

#include <algorithm>

namespace quarry::ops {

struct Transpose {
  static constexpr std::string_view name = "transpose";
  static constexpr int min_inputs = 1, max_inputs = 1;
  enum : size_t { kPerm, kShuffle };
  static AttrSchema attrs() {
    static const AttrSpec specs[] = {
        {"perm", AttrKind::IntList, std::vector<int64_t>{1, 0}},
        {"shuffle", AttrKind::Bool, int64_t{0}}};
    return specs;
  }
  static constexpr OpTraits traits{};
  static int num_outputs(const Attrs &) { return 1; }

  static MaybeTypes infer(const Attrs &a, InTypes in) {
    const auto &perm = a.list(kPerm);
    const TensorType &x = in[0];
    std::vector<int64_t> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    bool ok = static_cast<int>(perm.size()) == x.rank();
    for (size_t i = 0; ok && i < sorted.size(); ++i)
      ok = sorted[i] == static_cast<int64_t>(i);
    if (!ok)
      fail(name, "perm is not a permutation of the axes of ", x.shape.str());
    TensorType out;
    for (int64_t p : perm)
      out.shape.dims.push_back(x.shape[static_cast<int>(p)]);
    for (int i = 0; i < out.rank(); ++i)
      out.set_split(i, x.split(static_cast<int>(perm[i])));
    return Types{out};
  }

  template <Domain D>
  static void evaluate(const D &, const Attrs &a, OpInputs<D> in,
                       OpOutputs<D> out) {
    const auto &perm = a.list(kPerm);
    const auto &x = *in[0];
    auto &y = out[0];
    const int r = x.shape.rank();
    const auto xs = x.shape.strides();
    std::vector<int64_t> idx(r, 0); // index into y
    for (int64_t i = 0; i < y.numel(); ++i) {
      int64_t src = 0;
      for (int k = 0; k < r; ++k)
        src += idx[k] * xs[perm[k]];
      y[i] = x[src];
      for (int k = r - 1; k >= 0; --k) {
        if (++idx[k] < y.shape[k])
          break;
        idx[k] = 0;
      }
    }
  }
};

} // namespace quarry::ops
