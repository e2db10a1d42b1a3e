//===- builder.h - Building networks layer by layer -------------*- C++ -*-===//
//
// A thin layer over Graph for the benchmark networks: each call adds one
// operator with fresh, named weights whose values are seeded random numbers
// scaled by their fan-in, so deep networks stay finite in float evaluation
// and a softmax's inputs stay moderate (a saturated softmax turns float
// rounding into different outputs, and no two equivalent graphs could be
// compared).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/model.h"

#include <array>

namespace quarry {

class NetBuilder {
public:
  /// Without values the weight table stays empty (structure only).
  NetBuilder(uint64_t seed, bool with_values = true)
      : seed_(seed), with_values_(with_values) {}

  ValueRef input(const std::string &name, Shape shape);
  /// A weight of `shape` with fan-in numel / shape[0] (rank >= 2) or 1,
  /// He-scaled.
  ValueRef weight(Shape shape);
  /// A weight of `shape` uniform in +-sqrt(3 gain / fan_in): variance
  /// gain / fan_in. Gain 2 (He) keeps a layer followed by relu at the
  /// variance of its input, gain 1 (LeCun) a linear one.
  ValueRef weight(Shape shape, int64_t fan_in, float gain);

  /// conv2d with a new [co, c/groups, kh, kw] weight, He-scaled (the
  /// networks' convolutions feed relus).
  ValueRef conv(ValueRef x, int64_t co, std::array<int64_t, 2> k,
                std::array<int64_t, 2> s = {1, 1}, Padding pad = Padding::Same,
                Activation act = Activation::None, int64_t groups = 1);
  ValueRef pool(OpKind kind, ValueRef x, std::array<int64_t, 2> k,
                std::array<int64_t, 2> s, Padding pad = Padding::Same);
  /// Average over the whole spatial extent: pool2d_avg[k=h,w pad=valid].
  ValueRef global_avg_pool(ValueRef x);
  /// matmul with a new [k, n] weight of fan-in k, LeCun-scaled (BERT's
  /// projections are linear, and its attention logits their products).
  ValueRef dense(ValueRef x, int64_t n);
  ValueRef op(OpKind kind, std::vector<ValueRef> in) {
    return g_.add1(kind, std::move(in));
  }
  ValueRef op(OpKind kind, Attrs attrs, std::vector<ValueRef> in) {
    return g_.add1(kind, std::move(attrs), std::move(in));
  }
  ValueRef concat(int64_t axis, std::vector<ValueRef> in);

  const Shape &shape(ValueRef v) const { return g_.type(v)->shape; }
  Graph &graph() { return g_; }
  /// Marks `out` as the output and hands over the model.
  Model finish(ValueRef out);

private:
  Graph g_;
  WeightTable weights_;
  uint64_t seed_;
  bool with_values_;
  int next_weight_ = 0;
};

} // namespace quarry
