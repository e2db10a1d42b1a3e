//===- float_ops/where.cc - where's shapes and float semantics ------------===//
#include "quarry/core/ops/where.h"

#include "quarry/core/ops/broadcast.h"

namespace quarry::ops {

MaybeTypes Where::infer(const Attrs &, InTypes in) {
  const Shape xy = broadcast_shape(name, in[1].shape, in[2].shape);
  return Types{TensorType(broadcast_shape(name, in[0].shape, xy))};
}

void Where::run(const Attrs &, FloatInputs in, FloatOutputs out) {
  FloatTensor &z = out[0];
  const int r = z.shape.rank();
  std::vector<int64_t> strides[3];
  for (int k = 0; k < 3; ++k)
    strides[k] = broadcast_strides(in[k]->shape, z.shape);
  std::vector<int64_t> idx(r, 0);
  int64_t at[3] = {0, 0, 0};
  for (int64_t i = 0; i < z.numel(); ++i) {
    z[i] = (*in[0])[at[0]] != 0.0f ? (*in[1])[at[1]] : (*in[2])[at[2]];
    for (int d = r - 1; d >= 0; --d) {
      for (int k = 0; k < 3; ++k)
        at[k] += strides[k][d];
      if (++idx[d] < z.shape[d])
        break;
      for (int k = 0; k < 3; ++k)
        at[k] -= strides[k][d] * idx[d];
      idx[d] = 0;
    }
  }
}

} // namespace quarry::ops
