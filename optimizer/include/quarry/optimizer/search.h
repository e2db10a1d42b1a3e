//===- search.h - TASO's cost-based backtracking search --------*- C++ -*-===//
//
// A priority queue of graphs ordered by cost (ties by graph hash) starts
// with the input. Each step takes the cheapest graph and applies every
// transformation at every match; a new graph (by canonical hash, never seen
// before) whose cost is below alpha times the best cost so far enters the
// queue, and the cheapest graph ever seen is the result. alpha > 1 lets the
// search pass through slightly worse graphs to reach better ones. The
// budget bounds the number of graphs expanded.
//
// Memory is bounded: a search state is its parent, the transformation and
// the ordinal of the rewrite that made it (Transformation::apply_at), its
// hash and its cost, a few dozen bytes; graphs are kept only in a cache
// of recently built ones (least recently used first out) and rebuilt from
// their nearest cached ancestor when expanded. `memory_budget` covers the
// states, the seen-set, the queue, the cache and one expansion's
// candidates; the search stops early, keeping the best graph found, when
// the states alone would pass half of it.
//
// Candidates are not made: each rewrite is viewed on the expanded graph
// (rewrite/rewrite_view.h), which gives the key the rewritten graph would
// have, and its cost (rewrite_cost.h), exactly, from the nodes the rewrite
// touches. Only the graphs the search expands or returns are built.
// Matching (a task per transformation) and then viewing (a task per
// proposal) run on a
// oneTBB arena, and candidates are collected in transformation order; a
// candidate whose configurations are not all costed yet is costed after,
// one after another, so the result for a given budget and cost cache does
// not depend on the thread count.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/optimizer/cost_model.h"
#include "quarry/rewrite/transformation.h"

#include <functional>
#include <vector>

namespace quarry::opt {

struct SearchOptions {
  double alpha = 1.05;
  int budget = 1000;         ///< graphs expanded at most
  int threads = 0;           ///< 0: oneTBB's default
  size_t max_matches = 2000; ///< per transformation and graph
  /// Bytes the search's own data may take (see above).
  size_t memory_budget = size_t{512} << 20;
  /// How many of the cheapest graphs to return (SearchResult::ranked).
  int keep_best = 1;
};

/// One of the cheapest graphs the search saw.
struct RankedGraph {
  Graph graph;
  double cost = 0;
  std::vector<int> steps; ///< transformations from the start, in order
  /// Each step's Transformation::apply_at ordinal.
  std::vector<int> ordinals;
};

struct SearchProgress {
  int expanded = 0;
  size_t queue = 0;
  size_t seen = 0;
  double best_cost = 0;
};

/// What one transformation could do to the graph the search started from.
struct StartMatch {
  int transformation = 0; ///< index into the search's list
  int rewrites = 0;       ///< rewrites it proposed that made a graph
  /// The predicted cost of the cheapest graph one of them made (0 when
  /// each made a graph seen before).
  double best_cost = 0;
};

struct SearchResult {
  Graph best;
  double initial_cost = 0;
  double best_cost = 0;
  /// Transformations applied to reach `best`, in order (indices into the
  /// list the search was given).
  std::vector<int> steps;
  int expanded = 0;
  size_t candidates = 0; ///< graphs generated, duplicates included
  size_t distinct = 0;   ///< distinct graphs costed
  double seconds = 0;
  /// The most the search's data took at once (estimated), in bytes.
  size_t peak_bytes = 0;
  /// Graphs rebuilt from an ancestor because the cache had let them go.
  size_t rebuilt = 0;
  /// True when the memory budget ended the search before its budget.
  bool stopped_by_memory = false;
  /// Each transformation that rewrote the start graph, in list order:
  /// why a rule did not pay shows here first (it never matched, or its
  /// best rewrite was predicted no cheaper).
  std::vector<StartMatch> at_start;
  /// The keep_best cheapest distinct graphs, cheapest first (ties by
  /// hash); ranked[0] is `best`.
  std::vector<RankedGraph> ranked;
};

SearchResult
search(const Graph &start,
       const std::vector<rewrite::Transformation> &transformations,
       CostModel &cost, const SearchOptions &opts,
       const std::function<void(const SearchProgress &)> &progress = {});

/// Approximate bytes a graph takes in memory (nodes, attributes, types).
size_t graph_bytes(const Graph &g);

} // namespace quarry::opt
