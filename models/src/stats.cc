//===- stats.cc - Operator counts, parameters and FLOPs -------------------===//
#include "quarry/models/stats.h"

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

GraphStats graph_stats(const Graph &g) {
  GraphStats s;
  const auto live = g.live_nodes();
  for (int32_t id = 0; id < g.num_nodes(); ++id) {
    const Node &n = g.node(id);
    if (!live[id])
      continue;
    if (n.types.empty())
      throw Error("stats: node " + std::to_string(id) + " (" +
                  std::string(op_name(n.kind)) + ") has no known shape");
    if (n.kind == OpKind::Weight)
      s.parameters += n.types[0].shape.numel();
    if (n.is_variable())
      continue;
    ++s.op_counts[std::string(op_name(n.kind))];
    int64_t outputs = 0;
    for (const auto &t : n.types)
      outputs += t.shape.numel();
    const int64_t m = macs(n, g);
    s.flops += m > 0 ? 2 * m : outputs;
  }
  return s;
}

} // namespace quarry
