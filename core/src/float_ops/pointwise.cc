//===- float_ops/pointwise.cc - pointwise's float semantics ---------------===//
#include "quarry/core/ops/pointwise.h"

namespace quarry::ops {

void Pointwise::run(const Attrs &a, FloatInputs in, FloatOutputs out) {
  const auto fn = static_cast<PointwiseFn>(a.i(kFn));
  const float alpha = static_cast<float>(a.real(kAlpha));
  const float beta = static_cast<float>(a.real(kBeta));
  const FloatTensor &x = *in[0];
  for (int64_t i = 0; i < x.numel(); ++i)
    out[0][i] = pointwise_value(fn, alpha, beta, x[i]);
}

int normalize_axis(std::string_view op, int64_t axis, int rank) {
  if (axis < -rank || axis >= rank)
    fail(op, "axis ", axis, " out of range for rank ", rank);
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

} // namespace quarry::ops
