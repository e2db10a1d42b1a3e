//===- float_ops/reduce.cc - reduce's shapes and semantics ----------------===//
#include "quarry/core/ops/reduce.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace quarry::ops {

std::vector<bool> reduced_axes(std::string_view op,
                               const std::vector<int64_t> &axes, int rank) {
  std::vector<bool> reduced(rank, false);
  for (int64_t axis : axes) {
    const int k = normalize_axis(op, axis, rank);
    if (reduced[k])
      fail(op, "axis ", axis, " listed twice");
    reduced[k] = true;
  }
  return reduced;
}

TensorType reduced_type(std::string_view op, const std::vector<int64_t> &axes,
                        bool keepdims, const Shape &x) {
  const auto reduced = reduced_axes(op, axes, x.rank());
  Shape out;
  for (int i = 0; i < x.rank(); ++i)
    if (!reduced[i])
      out.dims.push_back(x[i]);
    else if (keepdims)
      out.dims.push_back(1);
  return TensorType(out);
}

MaybeTypes Reduce::infer(const Attrs &a, InTypes in) {
  return Types{
      reduced_type(name, a.list(kAxes), a.i(kKeepDims) != 0, in[0].shape)};
}

void Reduce::run(const Attrs &a, FloatInputs in, FloatOutputs out) {
  const FloatTensor &x = *in[0];
  const auto fn = static_cast<ReduceFn>(a.i(kFn));
  const auto reduced = reduced_axes(name, a.list(kAxes), x.shape.rank());
  const int64_t n = out[0].numel();
  using F = ReduceFn;
  // Accumulated in double; max and min start from the first element.
  double start = 0;
  if (fn == F::Prod)
    start = 1;
  else if (fn == F::Max || fn == F::LogSumExp)
    start = -std::numeric_limits<double>::infinity();
  else if (fn == F::Min)
    start = std::numeric_limits<double>::infinity();
  std::vector<double> acc(n, start);
  if (fn == F::LogSumExp) {
    // log(sum e^x) = m + log(sum e^(x - m)), m the largest x: no overflow.
    std::vector<double> top(n, start);
    for_each_reduced(x, reduced, [&](int64_t o, float v) {
      top[o] = std::max<double>(top[o], v);
    });
    std::fill(acc.begin(), acc.end(), 0.0);
    for_each_reduced(x, reduced, [&](int64_t o, float v) {
      acc[o] += std::exp(static_cast<double>(v) - top[o]);
    });
    for (int64_t i = 0; i < n; ++i)
      out[0][i] = static_cast<float>(top[i] + std::log(acc[i]));
    return;
  }
  for_each_reduced(x, reduced, [&](int64_t o, float f) {
    const double v = f;
    switch (fn) {
    case F::Sum:
    case F::LogSum:
      acc[o] += v;
      break;
    case F::Max:
      acc[o] = std::max(acc[o], v);
      break;
    case F::Min:
      acc[o] = std::min(acc[o], v);
      break;
    case F::Prod:
      acc[o] *= v;
      break;
    case F::L1:
      acc[o] += std::fabs(v);
      break;
    case F::L2:
    case F::SumSquare:
      acc[o] += v * v;
      break;
    case F::LogSumExp:
      break;
    }
  });
  for (int64_t i = 0; i < n; ++i) {
    double v = acc[i];
    if (fn == F::L2)
      v = std::sqrt(v);
    else if (fn == F::LogSum)
      v = std::log(v);
    out[0][i] = static_cast<float>(v);
  }
}

} // namespace quarry::ops
