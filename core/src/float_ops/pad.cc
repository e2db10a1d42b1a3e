//===- float_ops/pad.cc - pad's shapes and float semantics ----------------===//
#include "quarry/core/ops/pad.h"

namespace quarry::ops {

MaybeTypes Pad::infer(const Attrs &a, InTypes in) {
  const Shape &x = in[0].shape;
  const auto &pads = a.list(kPads);
  if (static_cast<int>(pads.size()) != 2 * x.rank())
    fail(name, "pads needs ", 2 * x.rank(), " values for ", x.str());
  Shape out = x;
  for (int i = 0; i < x.rank(); ++i) {
    if (pads[i] < 0 || pads[i + x.rank()] < 0)
      fail(name, "negative pads are not supported");
    out[i] += pads[i] + pads[i + x.rank()];
  }
  return Types{TensorType(out)};
}

void Pad::run(const Attrs &a, FloatInputs in, FloatOutputs out) {
  const FloatTensor &x = *in[0];
  FloatTensor &y = out[0];
  const auto &pads = a.list(kPads);
  const int r = x.shape.rank();
  const auto ys = y.shape.strides();
  for (int64_t i = 0; i < y.numel(); ++i)
    y[i] = static_cast<float>(a.real(kValue));
  std::vector<int64_t> idx(r, 0);
  for (int64_t i = 0; i < x.numel(); ++i) {
    int64_t dst = 0;
    for (int k = 0; k < r; ++k)
      dst += (idx[k] + pads[k]) * ys[k];
    y[dst] = x[i];
    for (int k = r - 1; k >= 0; --k) {
      if (++idx[k] < x.shape[k])
        break;
      idx[k] = 0;
    }
  }
}

} // namespace quarry::ops
