//===- ops/reduce.h - Reductions over axes ---------------------*- C++ -*-===//
//
// reduce[fn=F axes=.. keepdims=1](x), float only: over the listed axes
// (negative counts from the end; keepdims keeps them with extent 1):
//   sum, max, min, prod; l1: sum |x|; l2: sqrt(sum x^2);
//   sum_square: sum x^2; log_sum: log(sum x); log_sum_exp: log(sum e^x).
// The mean has its own operator, reduce_mean (ops/reduce_mean.h).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/ops/float_only.h"
#include "quarry/core/ops/scalar_fns.h"

#include <vector>

namespace quarry::ops {

struct Reduce : FloatOnly<Reduce> {
  static constexpr std::string_view name = "reduce";
  static constexpr int min_inputs = 1, max_inputs = 1;
  enum : size_t { kFn, kAxes, kKeepDims };
  static AttrSchema attrs() {
    static const AttrSpec specs[] = {
        {"fn", AttrKind::Enum, int64_t{0}, kReduceNames},
        {"axes", AttrKind::IntList, std::vector<int64_t>{-1}},
        {"keepdims", AttrKind::Bool, int64_t{1}}};
    return specs;
  }
  static MaybeTypes infer(const Attrs &a, InTypes in);
  static void run(const Attrs &a, FloatInputs in, FloatOutputs out);
};

/// Per axis of a rank-`rank` input: whether `axes` reduces it (an axis
/// out of range or listed twice is an error of operator `op`).
std::vector<bool> reduced_axes(std::string_view op,
                               const std::vector<int64_t> &axes, int rank);
/// The type of `x` reduced over `axes`.
TensorType reduced_type(std::string_view op, const std::vector<int64_t> &axes,
                        bool keepdims, const Shape &x);
/// Calls visit(o, v) for every element v of `x`, in order, with o the
/// index of the result element it reduces into.
template <class Visit>
void for_each_reduced(const FloatTensor &x, const std::vector<bool> &reduced,
                      Visit &&visit) {
  const int r = x.shape.rank();
  // Result strides per input axis (0 on reduced axes).
  std::vector<int64_t> ostride(r, 0);
  int64_t s = 1;
  for (int i = r - 1; i >= 0; --i)
    if (!reduced[i]) {
      ostride[i] = s;
      s *= x.shape[i];
    }
  std::vector<int64_t> idx(r, 0);
  int64_t o = 0;
  for (int64_t i = 0; i < x.numel(); ++i) {
    visit(o, x[i]);
    for (int k = r - 1; k >= 0; --k) {
      o += ostride[k];
      if (++idx[k] < x.shape[k])
        break;
      o -= ostride[k] * idx[k];
      idx[k] = 0;
    }
  }
}

} // namespace quarry::ops
