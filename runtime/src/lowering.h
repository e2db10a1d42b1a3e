//===- lowering.h - From a planned node to a backend's step ----*- C++ -*-===//
//
// What the cpu and cuda backends share between planning and their kernels:
// the Operand a kernel sees, the Step it returns, and lower_node(), which
// finds the kernel for a node's operator through core's one operator list.
// A backend names its kernel template, Kernel<Def>, with
//   static constexpr bool supported;
//   static Step make(Context &, const Node &, Operands in, Operands out);
// so adding an operator to a backend is one specialization.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/runtime/plan.h"

#include <functional>
#include <span>
#include <vector>

namespace quarry::runtime {

/// One operand or result of a node: its type and where its floats live (in
/// the backend's memory). Static operands hold values folded at prepare
/// time and are only read.
struct Operand {
  const TensorType *type = nullptr;
  float *data = nullptr;
  bool is_static = false;
  const Shape &shape() const { return type->shape; }
};

using Operands = std::span<const Operand>;

/// Runs one node on the buffers given to make().
using Step = std::function<void()>;

/// Whether Kernel<Def> exists for the operator `kind`.
template <template <class> class Kernel> bool has_kernel(OpKind kind) {
  return dispatch(kind, [](auto def) {
    return Kernel<typename decltype(def)::type>::supported;
  });
}

/// The step for dynamic node `id`; `data_of(ValueRef)` gives each value's
/// floats in the backend's memory.
template <template <class> class Kernel, class Context, class DataOf>
Step lower_node(Context &ctx, const Graph &g, const Plan &p, int32_t id,
                DataOf &&data_of) {
  const Node &n = g.node(id);
  auto operand = [&](ValueRef v) {
    const PlannedValue &pv = p.value(v);
    return Operand{&pv.type, data_of(v), pv.is_static};
  };
  std::vector<Operand> in, out;
  for (ValueRef v : n.inputs)
    in.push_back(operand(v));
  for (int o = 0; o < static_cast<int>(p.values[id].size()); ++o)
    out.push_back(operand({id, o}));
  return dispatch(n.kind, [&](auto def) -> Step {
    using K = Kernel<typename decltype(def)::type>;
    if constexpr (K::supported)
      return K::make(ctx, n, in, out);
    else
      return {}; // make_plan rejects unsupported dynamic nodes
  });
}

} // namespace quarry::runtime
