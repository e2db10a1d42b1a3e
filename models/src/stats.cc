//===- stats.cc - Operator counts, parameters and FLOPs -------------------===//
#include "quarry/models/stats.h"

#include "quarry/core/flops.h"

namespace quarry {

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
    s.flops += node_flops(g, id);
  }
  return s;
}

} // namespace quarry
