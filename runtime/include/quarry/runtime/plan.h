//===- plan.h - What a backend decides once per graph ----------*- C++ -*-===//
//
// Shared by the cpu and cuda backends, so both fold and plan the same way:
//   - static values: weights, constants, and every operator whose operands
//     are all static, computed once with the reference semantics (core's
//     evaluate templates), so a concat of weights or an enlarged kernel
//     costs nothing per run;
//   - steps: the remaining (dynamic) operators in topological order;
//   - buffers: each dynamic value gets a buffer; a buffer is reused by a
//     later value once every reader of the earlier one has run. Graph
//     inputs and outputs keep buffers of their own, so a graph may run
//     again without setting its inputs and outputs are never overwritten.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/evaluate.h"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace quarry::runtime {

struct PlannedValue {
  TensorType type;
  bool is_static = false;
  int buffer = -1; ///< dynamic values: index into Plan::buffer_elems
};

struct Plan {
  /// [node][output]; empty for nodes that do not reach an output.
  std::vector<std::vector<PlannedValue>> values;
  /// [node][output] for static nodes.
  std::vector<std::vector<Tensor<float>>> static_values;
  /// Dynamic operator nodes, in execution order.
  std::vector<int32_t> steps;
  /// Live `input` variable nodes.
  std::vector<int32_t> inputs;
  /// Size of each buffer, in floats.
  std::vector<int64_t> buffer_elems;

  const PlannedValue &value(ValueRef v) const {
    return values[v.node][v.output];
  }
  /// Floats in all buffers, and what one buffer per value would take.
  int64_t planned_elems() const;
  int64_t unplanned_elems() const;
};

/// One step of an execution order: the values it reads and writes.
struct ScheduledStep {
  std::vector<ValueRef> reads, writes;
};

/// One step per dynamic node of `p`, in the plan's order: what it reads and
/// every result it writes.
std::vector<ScheduledStep> node_schedule(const Graph &g, const Plan &p);

/// Whether one step of a schedule completes before another starts, where
/// steps run on several streams (runtime/src/streams.h).
class HappensBefore;

/// Gives buffers anew to the dynamic values `schedule` writes, for a
/// backend that runs the plan's nodes in another grouping (fusion): a
/// buffer is reused once every step that reads its value has run, by the
/// schedule's order or, given `order`, by what it guarantees. Values no
/// step writes (inside a fused step) get none (-1).
void assign_buffers(const Graph &g, Plan &p,
                    const std::vector<ScheduledStep> &schedule,
                    const HappensBefore *order = nullptr);

/// Decides whether the backend can run a dynamic node of this kind.
using SupportsOp = std::function<bool(OpKind)>;

/// Plans `g` for the backend called `backend` (named in errors). Throws
/// quarry::Error for a variable without a shape, a missing weight, or a
/// dynamic operator `supports` rejects.
Plan make_plan(const Graph &g, const Bindings<float> &weights,
               std::string_view backend, const SupportsOp &supports);

/// The plan of `g` without values: types, which values are static and the
/// dynamic steps in order (no folding, no buffers, no weights needed), for
/// deciding what a backend would fuse in graphs it will never run.
Plan plan_shapes(const Graph &g);

/// "node 'y' (conv2d)" or "node 7 (conv2d)" when it has no name.
std::string describe_node(const Graph &g, int32_t id);

/// Why no backend can run `g`: its first live node kept from an imported
/// model without semantics (ops/opaque.h), named; "" when it can run.
std::string why_unrunnable(const Graph &g);

/// Checks the bound inputs against the plan; throws quarry::Error naming the
/// backend and the input that is missing or has the wrong shape.
void check_inputs(const Graph &g, const Plan &p, const Bindings<float> &inputs,
                  std::string_view backend);

} // namespace quarry::runtime
