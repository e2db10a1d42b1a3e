//===- float_ops/broadcast.cc - broadcast's shapes and float semantics ----===//
#include "quarry/core/ops/broadcast.h"

#include <algorithm>
#include <cmath>

namespace quarry::ops {

Shape broadcast_shape(std::string_view op, const Shape &a, const Shape &b) {
  const int r = std::max(a.rank(), b.rank());
  Shape out(std::vector<int64_t>(r, 1));
  for (int i = 0; i < r; ++i) {
    const int ia = i - (r - a.rank()), ib = i - (r - b.rank());
    const int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
    if (da != db && da != 1 && db != 1)
      fail(op, "shapes ", a.str(), " and ", b.str(), " do not broadcast");
    // The extent that is not 1 (numpy's rule, which keeps an empty axis
    // empty: 0 against 1 is 0).
    out[i] = da == 1 ? db : da;
  }
  return out;
}

MaybeTypes Broadcast::infer(const Attrs &, InTypes in) {
  return Types{TensorType(broadcast_shape(name, in[0].shape, in[1].shape))};
}

std::vector<int64_t> broadcast_strides(const Shape &s, const Shape &out) {
  std::vector<int64_t> st(out.rank(), 0);
  const auto own = s.strides();
  const int off = out.rank() - s.rank();
  for (int i = 0; i < s.rank(); ++i)
    st[i + off] = s[i] == 1 ? 0 : own[i];
  return st;
}

void Broadcast::run(const Attrs &a, FloatInputs in, FloatOutputs out) {
  const auto fn = static_cast<BroadcastFn>(a.i(kFn));
  const FloatTensor &x = *in[0], &y = *in[1];
  FloatTensor &z = out[0];
  for_each_broadcast<2>(z.shape,
                        {broadcast_strides(x.shape, z.shape),
                         broadcast_strides(y.shape, z.shape)},
                        [&](int64_t i, const auto &at) {
                          z[i] = broadcast_value(fn, x[at[0]], y[at[1]]);
                        });
}

} // namespace quarry::ops
