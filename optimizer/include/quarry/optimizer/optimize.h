//===- optimize.h - A model through search and folding ---------*- C++ -*-===//
//
//   Model --complete_weights--> search (rules + fusions, cost model)
//         --fold_constants--> optimized Model
// and the checks the CLI and the benchmark report: the outputs of the
// original and the optimized model on the reference backend, and the
// measured latency of both on a backend.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/models/model.h"
#include "quarry/optimizer/search.h"

#include <string>
#include <vector>

namespace quarry::opt {

struct OptimizeResult {
  Model model;         ///< the optimized model, static subgraphs folded
  SearchResult search; ///< best graph before folding, costs, steps
  /// Cost-model estimate of `model` (folded): equal to search.best_cost.
  double final_cost = 0;
};

/// Searches from `m` and folds the result; `seed` binds weights the model
/// has no values for, as the runtime would.
OptimizeResult
optimize(const Model &m, const std::vector<Transformation> &transformations,
         CostModel &cost, const SearchOptions &opts, uint64_t seed = 1,
         const std::function<void(const SearchProgress &)> &progress = {});

/// Largest relative output error (runtime::max_relative_error) of `after`
/// against `before`, both run on the reference backend with the same seeded
/// inputs.
double output_error(const Model &before, const Model &after, uint64_t seed);

/// Median milliseconds of one inference of `m` on `backend`.
double measure_latency(const Model &m, runtime::Backend &backend,
                       const runtime::MeasureOptions &opts);

} // namespace quarry::opt
