//===- float_ops/reduce.cc - reduce's shapes and semantics ----------------===//
#include "quarry/core/ops/reduce.h"

#include <algorithm>

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
  // Accumulated in double (ops/scalar_fns.h); log_sum_exp first finds
  // each result's largest element, so that no e^x overflows.
  std::vector<double> top(n, -HUGE_VAL);
  if (fn == ReduceFn::LogSumExp)
    for_each_reduced(x, reduced, [&](int64_t o, float v) {
      top[o] = std::max<double>(top[o], v);
    });
  std::vector<double> acc(n, reduce_start(fn));
  for_each_reduced(x, reduced, [&](int64_t o, float v) {
    acc[o] = reduce_step(fn, acc[o], v, top[o]);
  });
  for (int64_t i = 0; i < n; ++i)
    out[0][i] = static_cast<float>(reduce_finish(fn, acc[i], top[i]));
}

} // namespace quarry::ops
