//===- float_ops/gather_elements.cc - gather_elements' shapes, semantics --===//
#include "quarry/core/ops/gather_elements.h"

#include <cmath>

namespace quarry::ops {

MaybeTypes GatherElements::infer(const Attrs &a, InTypes in) {
  const Shape &x = in[0].shape, &idx = in[1].shape;
  if (idx.rank() != x.rank())
    fail(name, "indices ", idx.str(), " must have the rank of x ", x.str());
  const int axis = normalize_axis(name, a.i(kAxis), x.rank());
  // Off the axis an index names its own position in x, which must exist.
  for (int d = 0; d < x.rank(); ++d)
    if (d != axis && idx[d] > x[d])
      fail(name, "indices ", idx.str(), " exceed x ", x.str(), " on axis ", d);
  return Types{TensorType(idx)};
}

namespace {

/// Index value `v` along an axis of `extent` as 0..extent-1; throws for
/// anything else (a fraction or NaN would otherwise truncate silently).
int64_t element_index(float v, int64_t extent, int axis) {
  const double d = v;
  if (!(d >= -static_cast<double>(extent) && d < static_cast<double>(extent)) ||
      std::floor(d) != d)
    fail(GatherElements::name, "index ", v, " along axis ", axis,
         " is not an integer in [", -extent, ", ", extent, ")");
  const auto k = static_cast<int64_t>(d);
  return k < 0 ? k + extent : k;
}

} // namespace

void GatherElements::run(const Attrs &a, FloatInputs in, FloatOutputs out) {
  const FloatTensor &x = *in[0], &idx = *in[1];
  const int rank = x.shape.rank();
  const int axis = normalize_axis(name, a.i(kAxis), rank);
  const std::vector<int64_t> xs = x.shape.strides();
  // The output's position as coordinates, stepped like an odometer, and
  // where it falls in x but for the axis.
  std::vector<int64_t> at(rank, 0);
  int64_t base = 0;
  for (int64_t i = 0; i < idx.numel(); ++i) {
    const int64_t k = element_index(idx[i], x.shape[axis], axis);
    out[0][i] = x[base + k * xs[axis]];
    for (int d = rank - 1; d >= 0; --d) {
      if (d != axis)
        base += xs[d];
      if (++at[d] < idx.shape[d])
        break;
      if (d != axis)
        base -= at[d] * xs[d];
      at[d] = 0;
    }
  }
}

} // namespace quarry::ops
