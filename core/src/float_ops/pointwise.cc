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
    case PointwiseFn::Log:
      y = std::log(v);
      break;
    case PointwiseFn::Floor:
      y = std::floor(v);
      break;
    case PointwiseFn::Ceil:
      y = std::ceil(v);
      break;
    case PointwiseFn::Round:
      y = std::nearbyint(v); // the default rounding mode: halves to even
      break;
    case PointwiseFn::Sign:
      y = v > 0.0f ? 1.0f : v < 0.0f ? -1.0f : 0.0f;
      break;
    case PointwiseFn::Sin:
      y = std::sin(v);
      break;
    case PointwiseFn::Cos:
      y = std::cos(v);
      break;
    case PointwiseFn::Tan:
      y = std::tan(v);
      break;
    case PointwiseFn::Asin:
      y = std::asin(v);
      break;
    case PointwiseFn::Acos:
      y = std::acos(v);
      break;
    case PointwiseFn::Atan:
      y = std::atan(v);
      break;
    case PointwiseFn::Sinh:
      y = std::sinh(v);
      break;
    case PointwiseFn::Cosh:
      y = std::cosh(v);
      break;
    case PointwiseFn::Asinh:
      y = std::asinh(v);
      break;
    case PointwiseFn::Acosh:
      y = std::acosh(v);
      break;
    case PointwiseFn::Atanh:
      y = std::atanh(v);
      break;
    case PointwiseFn::Softplus:
      y = std::log1p(std::exp(v));
      break;
    case PointwiseFn::Softsign:
      y = v / (1.0f + std::fabs(v));
      break;
    case PointwiseFn::Elu:
      y = v > 0.0f ? v : alpha * std::expm1(v);
      break;
    case PointwiseFn::Selu:
      y = beta * (v > 0.0f ? v : alpha * std::expm1(v));
      break;
    case PointwiseFn::Celu:
      y = std::max(0.0f, v) + std::min(0.0f, alpha * std::expm1(v / alpha));
      break;
    case PointwiseFn::ThresholdedRelu:
      y = v > alpha ? v : 0.0f;
      break;
    case PointwiseFn::Shrink:
      y = v < -alpha ? v + beta : v > alpha ? v - beta : 0.0f;
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
