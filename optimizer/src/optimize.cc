//===- optimize.cc - A model through search and folding -------------------===//
#include "quarry/optimizer/optimize.h"

#include "quarry/optimizer/constant_fold.h"
#include "quarry/runtime/backends.h"
#include "quarry/runtime/run_inputs.h"

namespace quarry::opt {

OptimizeResult
optimize(const Model &m, const std::vector<Transformation> &transformations,
         CostModel &cost, const SearchOptions &opts, uint64_t seed,
         const std::function<void(const SearchProgress &)> &progress) {
  const Model full = complete_weights(m, seed);
  OptimizeResult r;
  r.search = search(full.graph, transformations, cost, opts, progress);
  Model best{r.search.best, {}};
  for (const Node &n : best.graph.nodes())
    if (n.kind == OpKind::Weight)
      best.weights.emplace(n.name, full.weights.at(n.name));
  r.model = fold_constants(best);
  r.final_cost = cost.graph_cost(r.model.graph);
  return r;
}

namespace {

/// The model's weights with seeded values for its inputs.
Bindings<float> values_for(const Model &m, uint64_t seed) {
  Bindings<float> v = runtime::random_run_bindings(m.graph, seed);
  for (const auto &[name, t] : m.weights)
    v[name] = t;
  return v;
}

} // namespace

double output_error(const Model &before, const Model &after, uint64_t seed) {
  auto reference = runtime::make_backend("reference");
  const Bindings<float> in_before = values_for(before, seed);
  Bindings<float> in_after = values_for(after, seed);
  // The inputs must be the very same tensors on both sides.
  for (const Node &n : before.graph.nodes())
    if (n.kind == OpKind::Input)
      in_after[n.name] = in_before.at(n.name);
  const auto want = runtime::run_once(
      *reference->prepare(before.graph, in_before), in_before);
  const auto got =
      runtime::run_once(*reference->prepare(after.graph, in_after), in_after);
  return runtime::max_relative_error(got, want);
}

double measure_latency(const Model &m, runtime::Backend &backend,
                       const runtime::MeasureOptions &opts) {
  const Bindings<float> v = values_for(m, opts.seed);
  auto exe = backend.prepare(m.graph, v);
  exe->set_inputs(v);
  return runtime::median_ms(*exe, opts);
}

} // namespace quarry::opt
