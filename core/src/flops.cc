//===- flops.cc - The arithmetic one node does ----------------------------===//
#include "quarry/core/flops.h"

namespace quarry {

namespace {

/// Multiply-adds of the operators that have them, else 0.
int64_t macs(const Node &n, const Graph &g) {
  auto in = [&](int k) { return g.type(n.inputs[k])->shape; };
  const int64_t outputs = n.types[0].shape.numel();
  switch (n.kind) {
  case OpKind::Conv2D: {
    const Shape w = in(1);
    return outputs * w[1] * w[2] * w[3];
  }
  case OpKind::ConvTranspose: {
    // Every input element scatters one kernel slice of co/groups channels.
    const Shape w = in(1);
    return in(0).numel() * w[1] * w[2] * w[3];
  }
  case OpKind::MatMul: {
    const Shape a = in(0);
    return outputs * a[a.rank() - 1];
  }
  default:
    return 0;
  }
}

} // namespace

int64_t node_flops(const Graph &g, int32_t id) {
  const Node &n = g.node(id);
  if (n.types.empty())
    return 0; // an operator kept untyped: nothing known of it
  int64_t outputs = 0;
  for (const auto &t : n.types)
    outputs += t.shape.numel();
  const int64_t m = macs(n, g);
  return m > 0 ? 2 * m : outputs;
}

} // namespace quarry
