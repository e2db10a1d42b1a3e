//===- float_ops/hardmax.cc - hardmax's shapes and float semantics --------===//
#include "quarry/core/ops/hardmax.h"

namespace quarry::ops {

MaybeTypes Hardmax::infer(const Attrs &a, InTypes in) {
  normalize_axis(name, a.i(kAxis), in[0].rank());
  return Types{TensorType(in[0].shape)};
}

void Hardmax::run(const Attrs &a, FloatInputs in, FloatOutputs out) {
  const FloatTensor &x = *in[0];
  const int axis = normalize_axis(name, a.i(kAxis), x.shape.rank());
  for_each_lane(x.shape, axis, [&](int64_t base, int64_t n, int64_t inner) {
    int64_t first = 0; // ties go to the lowest index
    for (int64_t k = 1; k < n; ++k)
      if (x[base + k * inner] > x[base + first * inner])
        first = k;
    for (int64_t k = 0; k < n; ++k)
      out[0][base + k * inner] = k == first ? 1.0f : 0.0f;
  });
}

} // namespace quarry::ops
