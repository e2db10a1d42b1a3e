//===- float_ops/layer_norm.cc - layer_norm's shapes and float semantics --===//
#include "quarry/core/ops/layer_norm.h"

#include <cmath>

namespace quarry::ops {

std::pair<int64_t, int64_t> LayerNorm::rows(const Attrs &a, const Shape &x) {
  const int axis = normalize_axis(name, a.i(kAxis), x.rank());
  int64_t row = 1;
  for (int i = axis; i < x.rank(); ++i)
    row *= x[i];
  return {row == 0 ? 0 : x.numel() / row, row};
}

MaybeTypes LayerNorm::infer(const Attrs &a, InTypes in) {
  const int64_t row = rows(a, in[0].shape).second;
  for (size_t k = 1; k < in.size(); ++k)
    if (in[k].shape.numel() != row)
      fail(name, k == 1 ? "scale " : "bias ", in[k].shape.str(), " holds ",
           in[k].shape.numel(), " values, not one per element of a row (", row,
           ") of ", in[0].shape.str());
  if (!(a.real(kEps) >= 0))
    fail(name, "eps must be at least 0, got ", a.real(kEps));
  return Types{TensorType(in[0].shape)};
}

void LayerNorm::run(const Attrs &a, FloatInputs in, FloatOutputs out) {
  const FloatTensor &x = *in[0], &scale = *in[1];
  const FloatTensor *bias = in.size() > 2 ? in[2] : nullptr;
  const auto [n, row] = rows(a, x.shape);
  const double eps = a.real(kEps);
  for (int64_t r = 0; r < n; ++r) {
    const float *xr = x.data.data() + r * row;
    float *yr = out[0].data.data() + r * row;
    // In double: a row of thousands of floats summed in float loses the
    // digits the difference from the mean keeps.
    double sum = 0;
    for (int64_t i = 0; i < row; ++i)
      sum += xr[i];
    const double mean = sum / static_cast<double>(row);
    double squares = 0;
    for (int64_t i = 0; i < row; ++i)
      squares += (xr[i] - mean) * (xr[i] - mean);
    const double inv =
        1.0 / std::sqrt(squares / static_cast<double>(row) + eps);
    for (int64_t i = 0; i < row; ++i)
      yr[i] = static_cast<float>((xr[i] - mean) * inv * scale[i] +
                                 (bias ? (*bias)[i] : 0.0f));
  }
}

} // namespace quarry::ops
