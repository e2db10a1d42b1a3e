//===- nasrnn.cc - The NasRNN cell as TASO's example builds it ------------===//
//
// `size` steps over inputs x_i [B,512] and a state weight [B,512]. Each step
// forms eight combinations matmul(x, W) + matmul(h, U) and mixes them with
// relu, sigmoid, tanh, ewadd and ewmul into the next state.
//
//===----------------------------------------------------------------------===//
#include "quarry/models/builder.h"
#include "quarry/models/zoo.h"

namespace quarry {

namespace {
constexpr int64_t kHidden = 512;

ValueRef step(NetBuilder &b, ValueRef h, ValueRef x) {
  std::vector<ValueRef> t;
  for (int i = 0; i < 8; ++i)
    t.push_back(
        b.op(OpKind::EwAdd, {b.dense(x, kHidden), b.dense(h, kHidden)}));
  auto f = [&](OpKind k, ValueRef v) { return b.op(k, {v}); };
  auto add = [&](ValueRef u, ValueRef v) {
    return b.op(OpKind::EwAdd, {u, v});
  };
  auto mul = [&](ValueRef u, ValueRef v) {
    return b.op(OpKind::EwMul, {u, v});
  };
  using enum OpKind;
  const ValueRef m0 = add(f(Relu, t[0]), f(Sigmoid, t[3]));
  const ValueRef m1 = add(f(Sigmoid, t[1]), f(Tanh, t[2]));
  const ValueRef m2 = mul(f(Sigmoid, t[4]), f(Tanh, t[5]));
  const ValueRef m3 = mul(f(Sigmoid, t[6]), f(Relu, t[7]));
  const ValueRef m4 = add(f(Sigmoid, m1), f(Tanh, m2));
  const ValueRef m5 = mul(f(Tanh, m0), f(Tanh, m3));
  const ValueRef m6 = mul(f(Tanh, m4), f(Tanh, m5));
  return f(Tanh, m6);
}
} // namespace

Model build_nasrnn(const ModelOptions &o) {
  NetBuilder b(o.seed, o.weight_values);
  std::vector<ValueRef> xs;
  for (int64_t i = 0; i < o.size; ++i)
    xs.push_back(b.input("x" + std::to_string(i), Shape{o.batch, kHidden}));
  ValueRef h = b.weight(Shape{o.batch, kHidden});
  for (ValueRef x : xs)
    h = step(b, h, x);
  return b.finish(h);
}

} // namespace quarry
