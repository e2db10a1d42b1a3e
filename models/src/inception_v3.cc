//===- inception_v3.cc - Inception-v3 as TASO's example builds it ---------===//
//
// On [B,3,size,size]: the stem, three A blocks, B, four C blocks, D, two E
// blocks and a global average pool; every convolution has a fused relu.
// TASO maps torchvision's paddings to `valid` when a kernel larger than 1x1
// has no padding and to `same` otherwise; so does this builder. (TASO's
// final pool has a 1x1 kernel; here it averages the whole map, as intended.)
//
//===----------------------------------------------------------------------===//
#include "quarry/models/builder.h"
#include "quarry/models/zoo.h"

namespace quarry {

namespace {
ValueRef conv(NetBuilder &b, ValueRef x, int64_t co,
              std::array<int64_t, 2> k = {1, 1},
              std::array<int64_t, 2> s = {1, 1},
              std::array<int64_t, 2> pad = {0, 0}) {
  const bool valid = pad[0] + pad[1] == 0 && k[0] + k[1] > 2;
  return b.conv(x, co, k, s, valid ? Padding::Valid : Padding::Same,
                Activation::Relu);
}
ValueRef max_pool(NetBuilder &b, ValueRef x) {
  return b.pool(OpKind::Pool2DMax, x, {3, 3}, {2, 2}, Padding::Valid);
}
ValueRef avg_pool(NetBuilder &b, ValueRef x) {
  return b.pool(OpKind::Pool2DAvg, x, {3, 3}, {1, 1}, Padding::Same);
}

ValueRef front(NetBuilder &b, ValueRef v) {
  v = conv(b, v, 32, {3, 3}, {2, 2});
  v = conv(b, v, 32, {3, 3});
  v = conv(b, v, 64, {3, 3}, {1, 1}, {1, 1});
  v = max_pool(b, v);
  v = conv(b, v, 80);
  v = conv(b, v, 192, {3, 3});
  return max_pool(b, v);
}

ValueRef block_a(NetBuilder &b, ValueRef v, int64_t pool_features) {
  const ValueRef a = conv(b, v, 64);
  const ValueRef c5 = conv(b, conv(b, v, 48), 64, {5, 5}, {1, 1}, {2, 2});
  ValueRef d = conv(b, v, 64);
  d = conv(b, d, 96, {3, 3}, {1, 1}, {1, 1});
  d = conv(b, d, 96, {3, 3}, {1, 1}, {1, 1});
  const ValueRef p = conv(b, avg_pool(b, v), pool_features);
  return b.concat(1, {a, c5, d, p});
}

ValueRef block_b(NetBuilder &b, ValueRef v) {
  const ValueRef a = conv(b, v, 384, {3, 3}, {2, 2});
  ValueRef d = conv(b, v, 64);
  d = conv(b, d, 96, {3, 3}, {1, 1}, {1, 1});
  d = conv(b, d, 96, {3, 3}, {2, 2});
  return b.concat(1, {a, d, max_pool(b, v)});
}

ValueRef block_c(NetBuilder &b, ValueRef v, int64_t c7) {
  const ValueRef a = conv(b, v, 192);
  ValueRef s = conv(b, v, c7);
  s = conv(b, s, c7, {1, 7}, {1, 1}, {0, 3});
  s = conv(b, s, 192, {7, 1}, {1, 1}, {3, 0});
  ValueRef d = conv(b, v, c7);
  d = conv(b, d, c7, {7, 1}, {1, 1}, {3, 0});
  d = conv(b, d, c7, {1, 7}, {1, 1}, {0, 3});
  d = conv(b, d, c7, {7, 1}, {1, 1}, {3, 0});
  d = conv(b, d, 192, {1, 7}, {1, 1}, {0, 3});
  const ValueRef p = conv(b, avg_pool(b, v), 192);
  return b.concat(1, {a, s, d, p});
}

ValueRef block_d(NetBuilder &b, ValueRef v) {
  const ValueRef a = conv(b, conv(b, v, 192), 320, {3, 3}, {2, 2});
  ValueRef d = conv(b, v, 192);
  d = conv(b, d, 192, {1, 7}, {1, 1}, {0, 3});
  d = conv(b, d, 192, {7, 1}, {1, 1}, {3, 0});
  d = conv(b, d, 192, {3, 3}, {2, 2});
  return b.concat(1, {a, d, max_pool(b, v)});
}

ValueRef block_e(NetBuilder &b, ValueRef v) {
  const ValueRef a = conv(b, v, 320);
  const ValueRef s = conv(b, v, 384);
  const ValueRef s1 = conv(b, s, 384, {1, 3}, {1, 1}, {0, 1});
  const ValueRef s2 = conv(b, s, 384, {3, 1}, {1, 1}, {1, 0});
  ValueRef d = conv(b, v, 448);
  d = conv(b, d, 384, {3, 3}, {1, 1}, {1, 1});
  const ValueRef d1 = conv(b, d, 384, {1, 3}, {1, 1}, {0, 1});
  const ValueRef d2 = conv(b, d, 384, {3, 1}, {1, 1}, {1, 0});
  const ValueRef p = conv(b, avg_pool(b, v), 192);
  return b.concat(1, {a, s1, s2, d1, d2, p});
}
} // namespace

Model build_inception_v3(const ModelOptions &o) {
  NetBuilder b(o.seed, o.weight_values);
  ValueRef v = b.input("x", Shape{o.batch, 3, o.size, o.size});
  v = front(b, v);
  for (int64_t f : {32, 64, 64})
    v = block_a(b, v, f);
  v = block_b(b, v);
  for (int64_t c7 : {128, 160, 160, 192})
    v = block_c(b, v, c7);
  v = block_d(b, v);
  v = block_e(b, block_e(b, v));
  return b.finish(b.global_avg_pool(v));
}

} // namespace quarry
