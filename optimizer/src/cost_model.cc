//===- cost_model.cc - A graph's cost: its operators' measured costs ------===//
#include "quarry/optimizer/cost_model.h"

#include "quarry/runtime/backends.h"
#include "quarry/runtime/plan.h"
#include "quarry/runtime/streams.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace quarry::opt {

CostModel::CostModel(runtime::Backend &backend, runtime::CostCache &cache,
                     runtime::MeasureOptions measure)
    : backend_(&backend), fusing_(&backend), cache_(&cache), measure_(measure) {
}

CostModel::CostModel(CostFn cost) : cost_fn_(std::move(cost)) {}

CostModel::CostModel(CostFn cost, const runtime::Backend &fusing)
    : fusing_(&fusing), cost_fn_(std::move(cost)) {}

namespace {

/// Node `id`'s configuration as it is measured alone.
runtime::OpConfig node_config(const Graph &g, int32_t id,
                              const std::vector<bool> &fixed) {
  runtime::OpConfig c = runtime::op_config(g, id, fixed);
  const Node &n = g.node(id);
  // A split at a concat boundary is measured alone, where its operand
  // records no boundary: give the sizes its results have.
  if (n.kind == OpKind::Split && !n.attrs.has(ops::Split::kSizes)) {
    std::vector<int64_t> sizes;
    const int axis = static_cast<int>(n.attrs.i(ops::Split::kAxis));
    for (const TensorType &t : n.types)
      sizes.push_back(t.shape[axis]);
    c.attrs.set(ops::Split::kSizes, std::move(sizes));
  }
  return c;
}

} // namespace

CostModel::RunningNodes CostModel::running_nodes(const Graph &g) const {
  const std::vector<bool> live = g.live_nodes();
  const std::vector<bool> fixed = g.static_nodes();
  const std::vector<bool> fused =
      fusing_ ? fusing_->fused_away(g) : std::vector<bool>();
  RunningNodes r;
  for (int32_t id = 0; id < g.num_nodes(); ++id) {
    // An uninterpreted operator is the same in every candidate and has no
    // cost quarry could measure: it adds nothing.
    if (!live[id] || fixed[id] || g.node(id).is_variable() ||
        op_info(g.node(id).kind).traits.uninterpreted ||
        (!fused.empty() && fused[id]))
      continue;
    r.nodes.push_back(id);
    r.hashes.push_back(runtime::config_hash(g, id, fixed));
  }
  return r;
}

bool CostModel::all_known(const std::vector<uint64_t> &hashes) const {
  for (uint64_t h : hashes)
    if (!by_hash_.count(h))
      return false;
  return true;
}

int64_t CostModel::ticks(double ms) {
  return static_cast<int64_t>(std::llround(ms * kTicksPerMs));
}

int64_t CostModel::known_ticks(uint64_t config_hash) const {
  auto it = by_hash_.find(config_hash);
  return it == by_hash_.end() ? -1
                              : ticks(scale_ * it->second) + ticks(launch_ms_);
}

double CostModel::cost_of_known(const std::vector<uint64_t> &hashes) const {
  int64_t total = 0;
  for (uint64_t h : hashes)
    total += known_ticks(h);
  return ms_of(total);
}

std::pair<double, int> CostModel::unscaled_cost(const Graph &g) {
  const RunningNodes running = running_nodes(g);
  cost_of(g, running);
  int64_t alone = 0;
  for (uint64_t h : running.hashes)
    alone += ticks(by_hash_.at(h));
  return {ms_of(alone), static_cast<int>(running.nodes.size())};
}

void CostModel::calibrate(const Graph &g, double measured_ms,
                          const Graph *probe, double probe_ms) {
  launch_ms_ = 0;
  scale_ = 1;
  const auto [alone, kernels] = unscaled_cost(g);
  if (kernels == 0 || !(alone > 0) || !(measured_ms > 0))
    return;
  scale_ = measured_ms / alone;
  if (!probe)
    return;
  // scale * alone + launch * kernels = measured, for `g` and the probe.
  const auto [probe_alone, probe_kernels] = unscaled_cost(*probe);
  const double det = probe_alone * kernels - probe_kernels * alone;
  if (det == 0)
    return;
  const double scale = (probe_ms * kernels - probe_kernels * measured_ms) / det;
  const double launch = (probe_alone * measured_ms - alone * probe_ms) / det;
  if (scale > 0 && launch > 0) {
    scale_ = scale;
    launch_ms_ = launch;
  }
}

double CostModel::cost_of(const Graph &g, const RunningNodes &running) {
  std::vector<bool> fixed;
  for (size_t i = 0; i < running.nodes.size(); ++i)
    if (!by_hash_.count(running.hashes[i])) {
      if (fixed.empty())
        fixed = g.static_nodes();
      by_hash_.emplace(running.hashes[i],
                       op_cost(node_config(g, running.nodes[i], fixed)));
    }
  return cost_of_known(running.hashes);
}

double CostModel::op_cost(const runtime::OpConfig &c) {
  // Within one model the backend and device are fixed: the configuration
  // alone keys the costs kept in memory.
  const std::string key = c.key();
  if (auto it = memo_.find(key); it != memo_.end())
    return it->second;
  const double ms = cost_fn_ ? cost_fn_(c) : measure(c);
  memo_.emplace(key, ms);
  return ms;
}

double CostModel::measure(const runtime::OpConfig &c) {
  bool measured = false;
  double ms = 0;
  try {
    ms = runtime::cached_measure(*cache_, *backend_, c, measure_, &measured);
  } catch (const Error &) {
    // An operator this backend cannot run (softmax on cpu, say): the
    // reference backend's cost stands in, so such graphs still compare.
    if (!reference_)
      reference_ = runtime::make_backend("reference");
    ms = runtime::cached_measure(*cache_, *reference_, c, measure_, &measured);
    ++fallbacks_;
  }
  measured_ += measured ? 1 : 0;
  return ms;
}

double CostModel::graph_cost(const Graph &g) {
  return cost_of(g, running_nodes(g));
}

double CostModel::critical_path_cost(const Graph &g, int streams) {
  const RunningNodes running = running_nodes(g);
  const double total = cost_of(g, running);
  if (streams == 1)
    return total;
  // Every dynamic node is a step, so that dependencies pass through the
  // nodes fused into another's kernel; only running ones cost.
  std::map<int32_t, int64_t> ticks_of;
  for (size_t i = 0; i < running.nodes.size(); ++i)
    ticks_of[running.nodes[i]] = known_ticks(running.hashes[i]);
  const runtime::Plan p = runtime::plan_shapes(g);
  const std::vector<runtime::ScheduledStep> schedule =
      runtime::node_schedule(g, p);
  std::vector<int64_t> step_ticks;
  for (int32_t id : p.steps) {
    auto it = ticks_of.find(id);
    step_ticks.push_back(it == ticks_of.end() ? 0 : it->second);
  }
  const runtime::StreamPlan plan = runtime::assign_streams(schedule, streams);
  const std::vector<std::vector<int>> producers =
      runtime::producers_of(schedule);
  std::vector<int64_t> finish(schedule.size(), 0);
  std::vector<int64_t> stream_free(static_cast<size_t>(plan.streams), 0);
  int64_t makespan = 0;
  for (int i : plan.order) {
    const size_t k = static_cast<size_t>(i);
    const size_t t = static_cast<size_t>(plan.stream_of[k]);
    int64_t start = stream_free[t];
    for (int q : producers[k])
      start = std::max(start, finish[static_cast<size_t>(q)]);
    finish[k] = start + step_ticks[k];
    stream_free[t] = finish[k];
    makespan = std::max(makespan, finish[k]);
  }
  return ms_of(makespan);
}

} // namespace quarry::opt
