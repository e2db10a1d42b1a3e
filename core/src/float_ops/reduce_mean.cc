//===- float_ops/reduce_mean.cc - reduce_mean's shapes and semantics ------===//
#include "quarry/core/ops/reduce_mean.h"

namespace quarry::ops {

namespace {
std::vector<bool> reduced_axes(const Attrs &a, int rank) {
  std::vector<bool> reduced(rank, false);
  for (int64_t axis : a.list(ReduceMean::kAxes)) {
    const int k = normalize_axis(ReduceMean::name, axis, rank);
    if (reduced[k])
      fail(ReduceMean::name, "axis ", axis, " listed twice");
    reduced[k] = true;
  }
  return reduced;
}
} // namespace

MaybeTypes ReduceMean::infer(const Attrs &a, InTypes in) {
  const Shape &x = in[0].shape;
  const auto reduced = reduced_axes(a, x.rank());
  Shape out;
  for (int i = 0; i < x.rank(); ++i)
    if (!reduced[i])
      out.dims.push_back(x[i]);
    else if (a.i(kKeepDims))
      out.dims.push_back(1);
  return Types{TensorType(out)};
}

void ReduceMean::run(const Attrs &a, FloatInputs in, FloatOutputs out) {
  const FloatTensor &x = *in[0];
  const int r = x.shape.rank();
  const auto reduced = reduced_axes(a, r);
  // Output strides per input axis (0 on reduced axes), so each input element
  // adds into its output position.
  std::vector<int64_t> ostride(r, 0);
  int64_t s = 1, count = 1;
  for (int i = r - 1; i >= 0; --i) {
    if (reduced[i]) {
      count *= x.shape[i];
      continue;
    }
    ostride[i] = s;
    s *= x.shape[i];
  }
  std::vector<double> acc(out[0].numel(), 0.0);
  std::vector<int64_t> idx(r, 0);
  int64_t o = 0;
  for (int64_t i = 0; i < x.numel(); ++i) {
    acc[o] += x[i];
    for (int k = r - 1; k >= 0; --k) {
      o += ostride[k];
      if (++idx[k] < x.shape[k])
        break;
      o -= ostride[k] * idx[k];
      idx[k] = 0;
    }
  }
  for (int64_t i = 0; i < out[0].numel(); ++i)
    out[0][i] = static_cast<float>(acc[i] / static_cast<double>(count));
}

} // namespace quarry::ops
