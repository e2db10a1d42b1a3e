//===- float_ops/slice.cc - slice's shapes and float semantics ------------===//
#include "quarry/core/ops/slice.h"

#include <algorithm>

namespace quarry::ops {

Slice::Plan Slice::plan(const Attrs &a, const Shape &x, bool allow_empty) {
  const auto &starts = a.list(kStarts), &ends = a.list(kEnds),
             &axes = a.list(kAxes), &steps = a.list(kSteps);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size())
    fail(name, "starts, ends, axes and steps must have equal lengths");
  Plan p{std::vector<int64_t>(x.rank(), 0), std::vector<int64_t>(x.rank(), 1),
         x};
  std::vector<bool> seen(x.rank(), false);
  for (size_t i = 0; i < starts.size(); ++i) {
    const int ax = normalize_axis(name, axes[i], x.rank());
    if (seen[ax])
      fail(name, "axis ", axes[i], " listed twice");
    seen[ax] = true;
    const int64_t n = x[ax], step = steps[i];
    if (step == 0)
      fail(name, "step must not be 0");
    int64_t b = starts[i] < 0 ? starts[i] + n : starts[i];
    int64_t e = ends[i] < 0 ? ends[i] + n : ends[i];
    if (step > 0) {
      b = std::clamp<int64_t>(b, 0, n);
      e = std::clamp<int64_t>(e, 0, n);
    } else { // ONNX: starts within [0, n - 1], ends within [-1, n - 1]
      b = std::clamp<int64_t>(b, 0, n - 1);
      e = std::clamp<int64_t>(e, -1, n - 1);
    }
    const int64_t len = std::max<int64_t>(
        0, step > 0 ? (e - b + step - 1) / step : (b - e - step - 1) / -step);
    if (len < 1 && !allow_empty)
      fail(name, "axis ", ax, " of ", x.str(), " sliced to nothing");
    p.start[ax] = b;
    p.step[ax] = step;
    p.out[ax] = len;
  }
  return p;
}

int64_t Slice::Plan::offset(const Shape &x) const {
  const auto xs = x.strides();
  int64_t o = 0;
  for (int i = 0; i < x.rank(); ++i)
    o += xs[i] * start[i];
  return o;
}

std::vector<int64_t> Slice::Plan::strides(const Shape &x) const {
  std::vector<int64_t> s = x.strides();
  for (int i = 0; i < x.rank(); ++i)
    s[i] *= step[i];
  return s;
}

void Slice::run(const Attrs &a, FloatInputs in, FloatOutputs out) {
  const FloatTensor &x = *in[0];
  const Plan p = plan(a, x.shape);
  const int r = x.shape.rank();
  const auto stride = p.strides(x.shape);
  const int64_t start = p.offset(x.shape);
  std::vector<int64_t> idx(r, 0);
  for (int64_t i = 0; i < out[0].numel(); ++i) {
    int64_t src = start;
    for (int k = 0; k < r; ++k)
      src += idx[k] * stride[k];
    out[0][i] = x[src];
    for (int k = r - 1; k >= 0; --k) {
      if (++idx[k] < p.out[k])
        break;
      idx[k] = 0;
    }
  }
}

} // namespace quarry::ops
