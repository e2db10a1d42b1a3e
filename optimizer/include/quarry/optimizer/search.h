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
// Candidates are generated on a oneTBB arena (one task per
// transformation) and collected in transformation order, then costed one
// after another, so the result for a given budget and cost cache does not
// depend on the thread count.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/optimizer/cost_model.h"
#include "quarry/optimizer/transformation.h"

#include <functional>
#include <vector>

namespace quarry::opt {

struct SearchOptions {
  double alpha = 1.05;
  int budget = 1000;         ///< graphs expanded at most
  int threads = 0;           ///< 0: oneTBB's default
  size_t max_matches = 2000; ///< per transformation and graph
};

struct SearchProgress {
  int expanded = 0;
  size_t queue = 0;
  size_t seen = 0;
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
};

SearchResult
search(const Graph &start, const std::vector<Transformation> &transformations,
       CostModel &cost, const SearchOptions &opts,
       const std::function<void(const SearchProgress &)> &progress = {});

} // namespace quarry::opt
