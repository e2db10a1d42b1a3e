//===- float_ops/reduce_mean.cc - reduce_mean's shapes and semantics ------===//
#include "quarry/core/ops/reduce_mean.h"
#include "quarry/core/ops/reduce.h"

namespace quarry::ops {

MaybeTypes ReduceMean::infer(const Attrs &a, InTypes in) {
  return Types{
      reduced_type(name, a.list(kAxes), a.i(kKeepDims) != 0, in[0].shape)};
}

void ReduceMean::run(const Attrs &a, FloatInputs in, FloatOutputs out) {
  const FloatTensor &x = *in[0];
  const auto reduced = reduced_axes(name, a.list(kAxes), x.shape.rank());
  std::vector<double> acc(out[0].numel(), 0.0);
  for_each_reduced(x, reduced, [&](int64_t o, float v) { acc[o] += v; });
  const double count =
      static_cast<double>(x.numel()) / static_cast<double>(out[0].numel());
  for (int64_t i = 0; i < out[0].numel(); ++i)
    out[0][i] = static_cast<float>(acc[i] / count);
}

} // namespace quarry::ops
