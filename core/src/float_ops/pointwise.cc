//===- float_ops/pointwise.cc - pointwise's float semantics ---------------===//
#include "quarry/core/ops/pointwise.h"

#include <algorithm>
#include <cmath>

namespace quarry::ops {

void Pointwise::run(const Attrs &a, FloatInputs in, FloatOutputs out) {
  const auto fn = static_cast<PointwiseFn>(a.i(kFn));
  const float alpha = static_cast<float>(a.real(kAlpha));
  const float beta = static_cast<float>(a.real(kBeta));
  const FloatTensor &x = *in[0];
  for (int64_t i = 0; i < x.numel(); ++i) {
    const float v = x[i];
    float y = v;
    switch (fn) {
    case PointwiseFn::Sqrt:
      y = std::sqrt(v);
      break;
    case PointwiseFn::Exp:
      y = std::exp(v);
      break;
    case PointwiseFn::Neg:
      y = -v;
      break;
    case PointwiseFn::Abs:
      y = std::fabs(v);
      break;
    case PointwiseFn::Erf:
      y = std::erf(v);
      break;
    case PointwiseFn::Reciprocal:
      y = 1.0f / v;
      break;
    case PointwiseFn::LeakyRelu:
      y = v >= 0.0f ? v : alpha * v;
      break;
    case PointwiseFn::Clip:
      y = std::min(std::max(v, alpha), beta);
      break;
    case PointwiseFn::HardSigmoid:
      y = std::max(0.0f, std::min(1.0f, alpha * v + beta));
      break;
    case PointwiseFn::HardSwish:
      y = v * std::max(0.0f, std::min(1.0f, v / 6.0f + 0.5f));
      break;
    }
    out[0][i] = y;
  }
}

int normalize_axis(std::string_view op, int64_t axis, int rank) {
  if (axis < -rank || axis >= rank)
    fail(op, "axis ", axis, " out of range for rank ", rank);
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

} // namespace quarry::ops
