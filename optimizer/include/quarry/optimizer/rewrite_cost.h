//===- rewrite_cost.h - A rewrite's cost, from its view --------*- C++ -*-===//
//
// The search prices about a thousand rewrites of every graph it expands
// and keeps the few it has not seen and can afford. Making and costing
// each one took over a millisecond on NASNet-A; the cost of a rewritten
// graph is instead told from the host's: the host's ticks, less what the
// nodes whose running changes cost there, plus what they cost in the
// rewritten graph. Those are the view's changed nodes
// (rewrite/rewrite_view.h) and every node of the fusion chains
// (runtime/fusion_policy.h) that pass near them, in either graph. Exact:
// CostModel::graph_cost() of the built graph gives the same figure.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/optimizer/cost_model.h"
#include "quarry/rewrite/rewrite_view.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace quarry::opt {

/// What a host's nodes cost as they run: made once per graph the search
/// expands, read-only after.
class CostIndex {
public:
  /// `host` and `cost` outlive the index.
  CostIndex(const rewrite::RewriteHost &host, const CostModel &cost);
  /// The host's cost in CostModel ticks, as graph_cost() gives it; -1 when
  /// one of its configurations has no cost yet.
  int64_t ticks() const { return ticks_; }

private:
  friend class RewriteCoster;

  const rewrite::RewriteHost *host_;
  const CostModel *cost_;
  const runtime::FusionPolicy *policy_;
  /// Each live operator's configuration (runtime::config_hash), else 0.
  std::vector<uint64_t> config_;
  /// What each node adds to the cost, in ticks (0 when it does not run).
  std::vector<int64_t> contrib_;
  int64_t ticks_ = 0;
};

/// Working memory for rewrite_cost() on one thread.
class CostScratch {
public:
  CostScratch();
  ~CostScratch();
  CostScratch(CostScratch &&) noexcept;
  CostScratch &operator=(CostScratch &&) noexcept;

private:
  friend class RewriteCoster;
  friend std::optional<double> rewrite_cost(const rewrite::RewriteView &,
                                            const CostIndex &, CostScratch &);
  struct Data;
  std::unique_ptr<Data> d_;
};

/// The cost (ms) of the graph `view` builds, as CostModel::graph_cost()
/// gives it; nullopt when one of its running configurations has no cost
/// yet (build the graph and cost it). `view` is Made, over the host
/// `index` was made for.
std::optional<double> rewrite_cost(const rewrite::RewriteView &view,
                                   const CostIndex &index,
                                   CostScratch &scratch);

} // namespace quarry::opt
