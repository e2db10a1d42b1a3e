//===- nasnet_a.cc - NASNet-A as TASO's example builds it -----------------===//
//
// On [B,128,size,size]: three stages of five normal cells and a reduction
// cell, channels 128 -> 256 -> 512 (reductions at 256, 512, 1024). Separable
// convolutions are a grouped kxk convolution (groups = channels / out) and
// a 1x1; cells mix them with 3x3 average and max pools and sum pairs of
// branches before concatenating five of them.
//
//===----------------------------------------------------------------------===//
#include "quarry/models/builder.h"
#include "quarry/models/zoo.h"

namespace quarry {

namespace {
ValueRef squeeze(NetBuilder &b, int64_t co, ValueRef x) {
  return b.conv(x, co, {1, 1}, {1, 1}, Padding::Same, Activation::Relu);
}

ValueRef fit(NetBuilder &b, ValueRef cur, ValueRef x) {
  if (b.shape(x)[2] == b.shape(cur)[2])
    return squeeze(b, b.shape(cur)[1], x);
  return b.conv(x, b.shape(cur)[1], {3, 3}, {2, 2}, Padding::Same,
                Activation::Relu);
}

ValueRef separable(NetBuilder &b, ValueRef x, int64_t co, int64_t k,
                   int64_t s) {
  // TASO's weight is [co, c/co, k, k]: co groups of c/co channels each.
  ValueRef t =
      b.conv(x, co, {k, k}, {s, s}, Padding::Same, Activation::None, co);
  return b.conv(t, co, {1, 1});
}

ValueRef avg3(NetBuilder &b, ValueRef x, int64_t s) {
  return b.pool(OpKind::Pool2DAvg, x, {3, 3}, {s, s});
}
ValueRef max3(NetBuilder &b, ValueRef x, int64_t s) {
  return b.pool(OpKind::Pool2DMax, x, {3, 3}, {s, s});
}
ValueRef add(NetBuilder &b, ValueRef x, ValueRef y) {
  return b.op(OpKind::EwAdd, {x, y});
}

ValueRef normal_cell(NetBuilder &b, ValueRef prev, ValueRef cur, int64_t co) {
  cur = squeeze(b, co, cur);
  prev = fit(b, cur, prev);
  return b.concat(
      1, {add(b, separable(b, cur, co, 3, 1), cur),
          add(b, separable(b, prev, co, 3, 1), separable(b, cur, co, 3, 1)),
          add(b, avg3(b, cur, 1), prev),
          add(b, avg3(b, prev, 1), avg3(b, prev, 1)),
          add(b, separable(b, prev, co, 3, 1), separable(b, prev, co, 3, 1))});
}

ValueRef reduction_cell(NetBuilder &b, ValueRef prev, ValueRef cur,
                        int64_t co) {
  cur = squeeze(b, co, cur);
  prev = fit(b, cur, prev);
  const ValueRef o0 =
      add(b, separable(b, prev, co, 7, 2), separable(b, cur, co, 5, 2));
  const ValueRef o1 = add(b, max3(b, cur, 2), separable(b, prev, co, 7, 2));
  const ValueRef o2 = add(b, avg3(b, cur, 2), separable(b, prev, co, 5, 2));
  const ValueRef o3 = add(b, max3(b, cur, 2), separable(b, o0, co, 3, 1));
  const ValueRef o4 = add(b, avg3(b, o0, 1), o1);
  return b.concat(1, {o0, o1, o2, o3, o4});
}
} // namespace

Model build_nasnet_a(const ModelOptions &o) {
  NetBuilder b(o.seed, o.weight_values);
  ValueRef x = b.input("x", Shape{o.batch, 128, o.size, o.size});
  x = b.pool(OpKind::Pool2DMax, x, {1, 1}, {1, 1});
  int64_t co = 128;
  for (int stage = 0; stage < 3; ++stage) {
    ValueRef prev = x, cur = x;
    for (int j = 0; j < 5; ++j) {
      const ValueRef t = normal_cell(b, prev, cur, co);
      prev = cur;
      cur = t;
    }
    co *= 2;
    x = reduction_cell(b, prev, cur, co);
  }
  return b.finish(x);
}

} // namespace quarry
