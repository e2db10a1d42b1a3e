//===- float_ops/softmax.cc - softmax's shapes and float semantics --------===//
#include "quarry/core/ops/softmax.h"

#include <algorithm>
#include <cmath>

namespace quarry::ops {

MaybeTypes Softmax::infer(const Attrs &a, InTypes in) {
  normalize_axis(name, a.i(kAxis), in[0].rank());
  return Types{TensorType(in[0].shape)};
}

void Softmax::run(const Attrs &a, FloatInputs in, FloatOutputs out) {
  const FloatTensor &x = *in[0];
  const int axis = normalize_axis(name, a.i(kAxis), x.shape.rank());
  for_each_lane(x.shape, axis, [&](int64_t base, int64_t n, int64_t inner) {
    float m = x[base];
    for (int64_t k = 1; k < n; ++k)
      m = std::max(m, x[base + k * inner]);
    float sum = 0.0f;
    for (int64_t k = 0; k < n; ++k) {
      const float e = std::exp(x[base + k * inner] - m);
      out[0][base + k * inner] = e;
      sum += e;
    }
    for (int64_t k = 0; k < n; ++k)
      out[0][base + k * inner] /= sum;
  });
}

} // namespace quarry::ops
