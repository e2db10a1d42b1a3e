//===- float_ops/pad.cc - pad's shapes and float semantics ----------------===//
#include "quarry/core/ops/pad.h"

namespace quarry::ops {

MaybeTypes Pad::infer(const Attrs &a, InTypes in) {
  const Shape &x = in[0].shape;
  const auto &pads = a.list(kPads);
  if (static_cast<int>(pads.size()) != 2 * x.rank())
    fail(name, "pads needs ", 2 * x.rank(), " values for ", x.str());
  const auto mode = static_cast<PadMode>(a.i(kMode));
  Shape out = x;
  for (int i = 0; i < x.rank(); ++i) {
    const int64_t before = pads[i], after = pads[i + x.rank()];
    if (before < 0 || after < 0)
      fail(name, "negative pads are not supported");
    if (mode == PadMode::Reflect && (before >= x[i] || after >= x[i]))
      fail(name, "reflect pads ", before, ",", after, " need more than ", x[i],
           " elements on axis ", i);
    if (mode == PadMode::Edge && x[i] == 0 && before + after > 0)
      fail(name, "edge padding of an empty axis ", i);
    out[i] += before + after;
  }
  return Types{TensorType(out)};
}

void Pad::run(const Attrs &a, FloatInputs in, FloatOutputs out) {
  const FloatTensor &x = *in[0];
  FloatTensor &y = out[0];
  const auto &pads = a.list(kPads);
  const auto mode = static_cast<PadMode>(a.i(kMode));
  const float value = static_cast<float>(a.real(kValue));
  const int r = x.shape.rank();
  const auto xs = x.shape.strides();
  // Per output element: the input element it copies (or none, for the
  // constant), axis by axis.
  std::vector<int64_t> idx(r, 0);
  for (int64_t i = 0; i < y.numel(); ++i) {
    int64_t src = 0;
    bool inside = true;
    for (int k = 0; k < r; ++k) {
      const int64_t j = pad_source(mode, idx[k] - pads[k], x.shape[k]);
      inside = inside && j >= 0;
      src += j * xs[k];
    }
    y[i] = inside ? x[src] : value;
    for (int k = r - 1; k >= 0; --k) {
      if (++idx[k] < y.shape[k])
        break;
      idx[k] = 0;
    }
  }
}

} // namespace quarry::ops
