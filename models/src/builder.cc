//===- builder.cc - Building networks layer by layer ----------------------===//
#include "quarry/models/builder.h"

#include "quarry/core/hash.h"

#include <cmath>

namespace quarry {

ValueRef NetBuilder::input(const std::string &name, Shape shape) {
  return g_.input(name, shape);
}

ValueRef NetBuilder::weight(Shape shape) {
  const int64_t fan_in = shape.rank() >= 2 ? shape.numel() / shape[0] : 1;
  return weight(std::move(shape), fan_in, 2.0f);
}

ValueRef NetBuilder::weight(Shape shape, int64_t fan_in, float gain) {
  const std::string name = "w" + std::to_string(next_weight_++);
  const float scale = std::sqrt(3.0f * gain / static_cast<float>(fan_in));
  if (with_values_) {
    // random_bits(seed, name, i), with the name hashed once.
    const uint64_t key = hash_combine(seed_, hash_bytes(name));
    Tensor<float> t(shape, 0.0f);
    for (int64_t i = 0; i < t.numel(); ++i)
      t[i] = scale *
             random_float(mix64(hash_combine(key, static_cast<uint64_t>(i))));
    weights_.emplace(name, std::move(t));
  }
  return g_.weight(name, shape);
}

ValueRef NetBuilder::conv(ValueRef x, int64_t co, std::array<int64_t, 2> k,
                          std::array<int64_t, 2> s, Padding pad, Activation act,
                          int64_t groups) {
  const ValueRef w = weight(Shape{co, shape(x)[1] / groups, k[0], k[1]});
  return g_.add1(
      OpKind::Conv2D,
      make_attrs(OpKind::Conv2D, {{"s", std::vector<int64_t>{s[0], s[1]}},
                                  {"pad", static_cast<int64_t>(pad)},
                                  {"act", static_cast<int64_t>(act)}}),
      {x, w});
}

ValueRef NetBuilder::pool(OpKind kind, ValueRef x, std::array<int64_t, 2> k,
                          std::array<int64_t, 2> s, Padding pad) {
  return g_.add1(kind,
                 make_attrs(kind, {{"k", std::vector<int64_t>{k[0], k[1]}},
                                   {"s", std::vector<int64_t>{s[0], s[1]}},
                                   {"pad", static_cast<int64_t>(pad)}}),
                 {x});
}

ValueRef NetBuilder::global_avg_pool(ValueRef x) {
  const Shape &s = shape(x);
  return pool(OpKind::Pool2DAvg, x, {s[2], s[3]}, {1, 1}, Padding::Valid);
}

ValueRef NetBuilder::dense(ValueRef x, int64_t n) {
  const int64_t k = shape(x)[shape(x).rank() - 1];
  const ValueRef w = weight(Shape{k, n}, k, 1.0f);
  return g_.add1(OpKind::MatMul, {x, w});
}

ValueRef NetBuilder::concat(int64_t axis, std::vector<ValueRef> in) {
  return g_.add1(OpKind::Concat, make_attrs(OpKind::Concat, {{"axis", axis}}),
                 std::move(in));
}

Model NetBuilder::finish(ValueRef out) {
  g_.mark_output(out);
  return Model{std::move(g_), std::move(weights_)};
}

} // namespace quarry
