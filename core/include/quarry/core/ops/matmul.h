//===- ops/matmul.h - Matrix product with a fused activation -*- C++ -*-===//
//
// matmul(a, b): a is [..., m, k], b is [..., k, n], equal leading (batch)
// dimensions; the result [..., m, n] goes through `act`.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <algorithm>
#include <vector>

#include "quarry/core/ops/common.h"

namespace quarry::ops {

struct MatMul {
  static constexpr std::string_view name = "matmul";
  static constexpr int min_inputs = 2, max_inputs = 2;
  enum : size_t { kAct };
  static AttrSchema attrs() {
    static const AttrSpec specs[] = {kActSpec};
    return specs;
  }
  static constexpr OpTraits traits{};
  static int num_outputs(const Attrs &) { return 1; }

  /// One multiply-add per output element and term of its inner product.
  static int64_t macs(const Attrs &, InTypes in, const Types &out) {
    const Shape &a = in[0].shape;
    return out[0].shape.numel() * a[a.rank() - 1];
  }
  static MaybeTypes infer(const Attrs &, InTypes in) {
    const Shape &a = in[0].shape, &b = in[1].shape;
    if (a.rank() < 2 || a.rank() != b.rank())
      fail(name, "operands must have equal rank >= 2, got ", a.str(), " and ",
           b.str());
    const int r = a.rank();
    for (int i = 0; i < r - 2; ++i)
      if (a[i] != b[i])
        fail(name, "batch dimensions differ: ", a.str(), " and ", b.str());
    if (a[r - 1] != b[r - 2])
      fail(name, "inner dimensions differ: ", a.str(), " times ", b.str());
    Shape s = a;
    s[r - 1] = b[r - 1];
    TensorType out(s);
    for (int i = 0; i < r - 2; ++i)
      out.set_split(i, common_split(in, i));
    out.set_split(r - 2, in[0].split(r - 2));
    out.set_split(r - 1, in[1].split(r - 1));
    return Types{out};
  }

  template <Domain D>
  static void evaluate(const D &d, const Attrs &at, OpInputs<D> in,
                       OpOutputs<D> out) {
    const auto &a = *in[0];
    const auto &b = *in[1];
    const int r = a.shape.rank();
    const int64_t m = a.shape[r - 2], k = a.shape[r - 1], n = b.shape[r - 1];
    const int64_t batches = a.numel() / (m * k);
    const auto act = static_cast<Activation>(at.i(kAct));
    // Row by row, a whole row of sums at a time: each sum still adds its
    // products in order p = 0..k-1 (the same result as one dot product per
    // element, in any domain), but b is read along its rows, contiguously.
    std::vector<typename D::Scalar> row(static_cast<size_t>(n));
    for (int64_t bt = 0; bt < batches; ++bt)
      for (int64_t i = 0; i < m; ++i) {
        std::fill(row.begin(), row.end(), d.zero());
        for (int64_t p = 0; p < k; ++p) {
          const auto x = a[(bt * m + i) * k + p];
          const auto *brow = &b[(bt * k + p) * n];
          for (int64_t j = 0; j < n; ++j)
            row[j] = d.add(row[j], d.mul(x, brow[j]));
        }
        for (int64_t j = 0; j < n; ++j)
          out[0][(bt * m + i) * n + j] = activate(d, act, row[j]);
      }
  }
};

} // namespace quarry::ops
