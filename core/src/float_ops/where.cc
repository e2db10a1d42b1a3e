//===- float_ops/where.cc - where's shapes and float semantics ------------===//
#include "quarry/core/ops/where.h"

#include "quarry/core/ops/broadcast.h"

namespace quarry::ops {

MaybeTypes Where::infer(const Attrs &, InTypes in) {
  const Shape xy = broadcast_shape(name, in[1].shape, in[2].shape);
  return Types{TensorType(broadcast_shape(name, in[0].shape, xy))};
}

void Where::run(const Attrs &, FloatInputs in, FloatOutputs out) {
  const FloatTensor &c = *in[0], &x = *in[1], &y = *in[2];
  FloatTensor &z = out[0];
  for_each_broadcast<3>(z.shape,
                        {broadcast_strides(c.shape, z.shape),
                         broadcast_strides(x.shape, z.shape),
                         broadcast_strides(y.shape, z.shape)},
                        [&](int64_t i, const auto &at) {
                          z[i] = select(c[at[0]], x[at[1]], y[at[2]]);
                        });
}

} // namespace quarry::ops
