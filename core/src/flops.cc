//===- flops.cc - The arithmetic one node does ----------------------------===//
#include "quarry/core/flops.h"

#include <type_traits>

namespace quarry {

int64_t node_flops(const Graph &g, int32_t id) {
  const Node &n = g.node(id);
  if (n.types.empty())
    return 0; // an operator kept untyped: nothing known of it
  int64_t outputs = 0;
  for (const auto &t : n.types)
    outputs += t.shape.numel();
  // The operators with multiply-adds say how many (ops/common.h, macs).
  std::vector<TensorType> in;
  for (ValueRef v : n.inputs) {
    const TensorType *t = g.type(v);
    if (!t)
      return outputs;
    in.push_back(*t);
  }
  const int64_t macs = dispatch(n.kind, [&](auto def) -> int64_t {
    using Def = typename decltype(def)::type;
    if constexpr (requires { Def::macs(n.attrs, ops::InTypes(in), n.types); })
      return Def::macs(n.attrs, ops::InTypes(in), n.types);
    else
      return 0;
  });
  return macs > 0 ? 2 * macs : outputs;
}

} // namespace quarry
