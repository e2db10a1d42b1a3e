//===- cost_model.h - A graph's cost: its operators' measured costs -*- C++
//-*-===//
//
// As in TASO, the cost of a graph is the sum of the measured costs of its
// operators that run per inference: operators computed from weights and
// constants only are folded before the graph runs (runtime/plan.h) and cost
// nothing, and nodes that reach no output do not run. Each operator
// configuration is measured once per machine on the chosen backend and kept
// in the runtime's cost cache file; within a process costs are also kept in
// memory. An operator the backend cannot run is costed on the reference
// backend instead (counted in fallbacks()). Not thread-safe: the search costs
// candidates one after another.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/graph.h"
#include "quarry/runtime/backend.h"
#include "quarry/runtime/cost_cache.h"
#include "quarry/runtime/measure.h"
#include "quarry/runtime/op_config.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace quarry::opt {

class CostModel {
public:
  using CostFn = std::function<double(const runtime::OpConfig &)>;

  CostModel(runtime::Backend &backend, runtime::CostCache &cache,
            runtime::MeasureOptions measure = {});
  /// Costs given by a function of the configuration, measuring nothing:
  /// for tests that must not depend on timings (a search whose outcome is
  /// asserted), and for costs computed rather than measured.
  explicit CostModel(CostFn cost);
  /// Costs from `cost`, with the nodes `fusing` runs inside another's
  /// kernel costing nothing, as that backend's measured costs would.
  CostModel(CostFn cost, const runtime::Backend &fusing);

  /// The operators that run per inference as kernels of their own, by node
  /// id, with the hash of each one's configuration (runtime::config_hash).
  /// Nodes the backend runs inside another's kernel (Backend::fused_away:
  /// an activation or a residual sum fused into a convolution) are left
  /// out: they cost what the kernel costs anyway. Pure: safe from several
  /// threads.
  struct RunningNodes {
    std::vector<int32_t> nodes;
    std::vector<uint64_t> hashes;
  };
  RunningNodes running_nodes(const Graph &g) const;

  /// Fits the model to whole-graph latencies. What operators measured one
  /// at a time leave out is of two kinds: a fixed cost per kernel (the
  /// executor's dispatch, threads woken), and what grows with the work
  /// each operator does (weights and activations no longer in cache when
  /// the operator before was another), a factor on every operator's cost.
  /// A graph's cost is then scale * (its operators alone) + launch * (its
  /// kernels). `g` measured `measured_ms` whole; `probe`, a chain of
  /// kernels that do almost nothing (optimize.h's launch_probe), measured
  /// `probe_ms`: the two fix both terms. Without a probe, or when the two
  /// measurements admit no positive cost per kernel, the factor alone is
  /// fitted, and `g`'s cost equals `measured_ms` either way.
  void calibrate(const Graph &g, double measured_ms,
                 const Graph *probe = nullptr, double probe_ms = 0);
  /// The fitted cost per kernel (0 until calibrated).
  double launch_ms() const { return launch_ms_; }
  /// The fitted factor on operators' costs (1 until calibrated).
  double scale() const { return scale_; }

  /// Whether every configuration hash has a cost already, so that
  /// cost_of_known() needs neither graph nor measurement. Only reads: safe
  /// from several threads while nothing is costed.
  bool all_known(const std::vector<uint64_t> &hashes) const;
  /// The sum of known costs (all_known must hold).
  double cost_of_known(const std::vector<uint64_t> &hashes) const;

  /// Costs are summed as whole ticks (kTicksPerMs), so a sum does not
  /// depend on its order and a graph's cost can be updated by the costs of
  /// the nodes a rewrite changes (rewrite_cost.h) to exactly the cost
  /// the rewritten graph has.
  static constexpr double kTicksPerMs = 1e9;
  static int64_t ticks(double ms);
  static double ms_of(int64_t ticks) {
    return static_cast<double>(ticks) / kTicksPerMs;
  }
  /// A running node's ticks (its configuration's cost, scaled, and one
  /// launch), or -1 when the configuration has no cost yet. Only reads.
  int64_t known_ticks(uint64_t config_hash) const;
  /// What the backend fuses, as rewrite_cost.h asks it of graphs not
  /// built; nullptr when it fuses nothing.
  const runtime::FusionPolicy *fusion_policy() const {
    return fusing_ ? fusing_->fusion_policy() : nullptr;
  }
  /// The graph's cost, costing (and remembering by hash) what is not known.
  double cost_of(const Graph &g, const RunningNodes &running);

  /// Milliseconds of one configuration: from memory, the cache, or measured.
  double op_cost(const runtime::OpConfig &c);
  /// cost_of(g, running_nodes(g)).
  double graph_cost(const Graph &g);
  /// `g` run with its independent operators on at most `streams` streams
  /// (0: as many as its widest wave needs), as runtime/streams.h places
  /// them: the finish time of the last operator, each starting once its
  /// stream's previous operator and the operators it reads from have
  /// finished. Operators cost what graph_cost() sums (fused ones nothing);
  /// with one stream this is graph_cost(). Not additive over rewrites, so
  /// the search's previews cannot use it: optimize() ranks the search's
  /// cheapest graphs by it (SelectOptions::streams).
  double critical_path_cost(const Graph &g, int streams);

  /// Configurations measured (not found in the cache) so far.
  int measured() const { return measured_; }
  /// Configurations the backend could not run, costed on the reference
  /// backend instead.
  int fallbacks() const { return fallbacks_; }

private:
  double measure(const runtime::OpConfig &c);
  /// `g`'s operators alone, unscaled and without launches, and how many
  /// kernels run.
  std::pair<double, int> unscaled_cost(const Graph &g);

  runtime::Backend *backend_ = nullptr;
  /// Whose fusions decide which nodes run (backend_ when it measures).
  const runtime::Backend *fusing_ = nullptr;
  runtime::CostCache *cache_ = nullptr;
  runtime::MeasureOptions measure_;
  CostFn cost_fn_;
  std::map<std::string, double, std::less<>> memo_;
  std::unordered_map<uint64_t, double> by_hash_;
  double launch_ms_ = 0;
  double scale_ = 1;
  std::unique_ptr<runtime::Backend> reference_;
  int measured_ = 0;
  int fallbacks_ = 0;
};

} // namespace quarry::opt
