//===- plan.cc - Static folding, execution order, buffer reuse ------------===//
#include "quarry/runtime/plan.h"

#include "buffer_pool.h"
#include "quarry/core/float_domain.h"
#include "quarry/core/memory_limit.h"

#include <algorithm>
#include <limits>
#include <map>

namespace quarry::runtime {

namespace {

[[noreturn]] void fail(std::string_view backend, const std::string &msg) {
  throw Error("backend " + std::string(backend) + ": " + msg);
}

/// Types and static values of every live node.
void fold(const Graph &g, const Bindings<float> &weights,
          std::string_view backend, const SupportsOp &supports,
          const std::vector<bool> &live, Plan &p) {
  const FloatDomain fd;
  for (int32_t id = 0; id < g.num_nodes(); ++id) {
    if (!live[id])
      continue;
    const Node &n = g.node(id);
    auto &vals = p.values[id];
    if (n.is_variable()) {
      if (n.types.empty())
        fail(backend, "variable '" + n.name + "' has no shape");
      vals = {PlannedValue{n.types[0], n.kind == OpKind::Weight, -1}};
      if (n.kind == OpKind::Input) {
        p.inputs.push_back(id);
        continue;
      }
      auto it = weights.find(n.name);
      if (it == weights.end())
        fail(backend, "no value for weight '" + n.name + "'");
      if (it->second.shape != n.types[0].shape)
        fail(backend, "weight '" + n.name + "' is declared " +
                          n.types[0].shape.str() + " but its value is " +
                          it->second.shape.str());
      p.static_values[id] = {it->second};
      continue;
    }
    std::vector<TensorType> in_types;
    std::vector<const Tensor<float> *> in;
    bool all_static = true;
    for (ValueRef v : n.inputs) {
      in_types.push_back(p.value(v).type);
      all_static = all_static && p.value(v).is_static;
      if (all_static)
        in.push_back(&p.static_values[v.node][v.output]);
    }
    auto out_types = infer_types(n.kind, n.attrs, in_types);
    if (!out_types)
      fail(backend, describe_node(g, id) + " has no shape");
    for (const auto &t : *out_types)
      vals.push_back(PlannedValue{t, all_static, -1});
    if (all_static) {
      p.static_values[id] =
          detail::run_node<FloatDomain>(fd, n, in, *out_types);
      continue;
    }
    if (!supports(n.kind))
      fail(backend, describe_node(g, id) + " is not supported on this backend");
    p.steps.push_back(id);
  }
}

} // namespace

void assign_buffers(const Graph &g, Plan &p,
                    const std::vector<ScheduledStep> &schedule,
                    const HappensBefore *order) {
  for (auto &vals : p.values)
    for (PlannedValue &v : vals)
      v.buffer = -1;
  p.buffer_elems.clear();
  // Inputs are written before the first step; inputs and outputs live on.
  std::map<ValueRef, int> use_of;
  std::vector<BufferUse> uses;
  auto add_use = [&](ValueRef v, int first) {
    use_of[v] = static_cast<int>(uses.size());
    uses.push_back({first, -1, p.value(v).type.shape.numel(), {}});
  };
  for (int32_t id : p.inputs)
    add_use({id, 0}, -1);
  for (size_t s = 0; s < schedule.size(); ++s) {
    for (ValueRef v : schedule[s].reads)
      if (auto it = use_of.find(v); it != use_of.end()) {
        BufferUse &u = uses[it->second];
        u.last = std::max(u.last, static_cast<int>(s));
        u.readers.push_back(static_cast<int>(s));
      }
    for (ValueRef v : schedule[s].writes)
      add_use(v, static_cast<int>(s));
  }
  for (int32_t id : p.inputs)
    uses[use_of.at({id, 0})].last = BufferUse::kForever;
  for (ValueRef v : g.outputs())
    if (auto it = use_of.find(v); it != use_of.end())
      uses[it->second].last = BufferUse::kForever;
  const std::vector<int> buffer =
      runtime::assign_buffers(uses, p.buffer_elems, order);
  for (const auto &[v, u] : use_of)
    p.values[v.node][v.output].buffer = buffer[u];
}

int64_t Plan::planned_elems() const {
  int64_t n = 0;
  for (int64_t e : buffer_elems)
    n += e;
  return n;
}

int64_t Plan::unplanned_elems() const {
  int64_t n = 0;
  for (const auto &vals : values)
    for (const auto &v : vals)
      if (!v.is_static)
        n += v.type.shape.numel();
  return n;
}

Plan plan_shapes(const Graph &g) {
  Plan p;
  p.values.resize(g.num_nodes());
  p.static_values.resize(g.num_nodes());
  const std::vector<bool> live = g.live_nodes();
  const std::vector<bool> fixed = g.static_nodes();
  for (int32_t id = 0; id < g.num_nodes(); ++id) {
    if (!live[id])
      continue;
    const Node &n = g.node(id);
    for (const TensorType &t : n.types)
      p.values[id].push_back(PlannedValue{t, fixed[id], -1});
    if (n.kind == OpKind::Input)
      p.inputs.push_back(id);
    else if (!n.is_variable() && !fixed[id])
      p.steps.push_back(id);
  }
  return p;
}

std::string describe_node(const Graph &g, int32_t id) {
  const Node &n = g.node(id);
  const std::string op(op_name(n.kind));
  if (!n.name.empty())
    return "node '" + n.name + "' (" + op + ")";
  return "node " + std::to_string(id) + " (" + op + ")";
}

std::string why_unrunnable(const Graph &g) {
  const std::vector<bool> live = g.live_nodes();
  for (int32_t id = 0; id < g.num_nodes(); ++id)
    if (live[id] && op_info(g.node(id).kind).traits.uninterpreted)
      return describe_node(g, id) +
             " is kept from the imported model as it is; quarry cannot run it";
  return "";
}

namespace {

/// Refuses a plan whose buffers, and the backend's copies of its static
/// values (weights, in its own layouts), would need more host memory than
/// the process may allocate, before the backend allocates them. A GPU's
/// buffers are in its own memory.
void refuse_past_memory(const Plan &p, std::string_view backend) {
  if (backend == "cuda")
    return;
  uint64_t statics = 0;
  for (const auto &outs : p.static_values)
    for (const Tensor<float> &t : outs)
      statics += t.data.size() * sizeof(float);
  const uint64_t buffers =
      static_cast<uint64_t>(p.planned_elems()) * sizeof(float);
  refuse_past(allocatable_memory(), buffers + statics,
              "backend " + std::string(backend) + ": running the graph (" +
                  byte_size_text(buffers) + " for its values, " +
                  byte_size_text(statics) + " of weights)");
}

/// Refuses a graph whose static values (its weights, and what folds from
/// them) would pass what the process may allocate, before fold copies
/// them.
void refuse_past_memory(const Graph &g, std::string_view backend) {
  if (backend == "cuda")
    return;
  const std::vector<bool> live = g.live_nodes(), fixed = g.static_nodes();
  uint64_t statics = 0;
  for (int32_t id = 0; id < g.num_nodes(); ++id)
    if (live[id] && fixed[id])
      for (const TensorType &t : g.node(id).types)
        statics += static_cast<uint64_t>(t.shape.numel()) * sizeof(float);
  refuse_past(allocatable_memory(), statics,
              "backend " + std::string(backend) + ": folding the graph's " +
                  byte_size_text(statics) + " of weights");
}

} // namespace

std::vector<ScheduledStep> node_schedule(const Graph &g, const Plan &p) {
  std::vector<ScheduledStep> schedule;
  for (int32_t id : p.steps) {
    ScheduledStep s{g.node(id).inputs, {}};
    for (size_t o = 0; o < p.values[id].size(); ++o)
      s.writes.push_back({id, static_cast<int32_t>(o)});
    schedule.push_back(std::move(s));
  }
  return schedule;
}

Plan make_plan(const Graph &g, const Bindings<float> &weights,
               std::string_view backend, const SupportsOp &supports) {
  Plan p;
  p.values.resize(g.num_nodes());
  p.static_values.resize(g.num_nodes());
  refuse_past_memory(g, backend);
  fold(g, weights, backend, supports, g.live_nodes(), p);
  if (const std::string why = why_unrunnable(g); !why.empty())
    fail(backend, why);
  assign_buffers(g, p, node_schedule(g, p));
  refuse_past_memory(p, backend);
  return p;
}

void check_inputs(const Graph &g, const Plan &p, const Bindings<float> &inputs,
                  std::string_view backend) {
  for (int32_t id : p.inputs) {
    const Node &n = g.node(id);
    auto it = inputs.find(n.name);
    if (it == inputs.end())
      fail(backend, "no value for input '" + n.name + "'");
    const Shape &want = p.values[id][0].type.shape;
    if (it->second.shape != want)
      fail(backend, "input '" + n.name + "' must be " + want.str() + ", got " +
                        it->second.shape.str());
  }
}

} // namespace quarry::runtime
