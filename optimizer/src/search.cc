//===- search.cc - TASO's cost-based backtracking search ------------------===//
#include "quarry/optimizer/search.h"

#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <chrono>
#include <memory>
#include <queue>
#include <unordered_set>

namespace quarry::opt {

namespace {

struct State {
  Graph graph;
  double cost = 0;
  uint64_t hash = 0;
  std::vector<int> steps;
};
using StatePtr = std::shared_ptr<const State>;

struct Cheaper {
  bool operator()(const StatePtr &a, const StatePtr &b) const {
    if (a->cost != b->cost)
      return a->cost > b->cost;
    return a->hash > b->hash;
  }
};

struct Generated {
  Graph graph;
  uint64_t hash = 0;
  std::vector<runtime::OpConfig> ops;
};

/// Every rewrite of `g`, per transformation, generated in parallel.
std::vector<std::vector<Generated>>
generate(const Graph &g, const std::vector<Transformation> &ts,
         size_t max_matches, tbb::task_arena &arena) {
  const HostInfo host(g);
  std::vector<std::vector<Generated>> out(ts.size());
  arena.execute([&] {
    tbb::parallel_for(size_t{0}, ts.size(), [&](size_t i) {
      for (Graph &r : ts[i].apply(host, max_matches)) {
        Generated gen;
        gen.hash = r.hash();
        gen.ops = CostModel::running_ops(r);
        gen.graph = std::move(r);
        out[i].push_back(std::move(gen));
      }
    });
  });
  return out;
}

} // namespace

SearchResult
search(const Graph &start, const std::vector<Transformation> &transformations,
       CostModel &cost, const SearchOptions &opts,
       const std::function<void(const SearchProgress &)> &progress) {
  const auto t0 = std::chrono::steady_clock::now();
  tbb::task_arena arena(opts.threads > 0 ? opts.threads
                                         : tbb::task_arena::automatic);
  SearchResult result;
  auto first = std::make_shared<State>();
  first->graph = start;
  first->cost = cost.graph_cost(start);
  first->hash = start.hash();
  result.initial_cost = first->cost;

  StatePtr best = first;
  std::priority_queue<StatePtr, std::vector<StatePtr>, Cheaper> queue;
  std::unordered_set<uint64_t> seen{first->hash};
  queue.push(first);
  while (!queue.empty() && result.expanded < opts.budget) {
    StatePtr cur = queue.top();
    queue.pop();
    ++result.expanded;
    auto gens = generate(cur->graph, transformations, opts.max_matches, arena);
    for (size_t t = 0; t < gens.size(); ++t)
      for (Generated &gen : gens[t]) {
        ++result.candidates;
        if (!seen.insert(gen.hash).second)
          continue;
        ++result.distinct;
        auto next = std::make_shared<State>();
        next->cost = cost.cost_of(gen.ops);
        next->hash = gen.hash;
        next->graph = std::move(gen.graph);
        next->steps = cur->steps;
        next->steps.push_back(static_cast<int>(t));
        if (next->cost < best->cost)
          best = next;
        if (next->cost < opts.alpha * best->cost)
          queue.push(std::move(next));
      }
    if (progress)
      progress({result.expanded, queue.size(), seen.size(), best->cost});
  }
  result.best = best->graph;
  result.best_cost = best->cost;
  result.steps = best->steps;
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  return result;
}

} // namespace quarry::opt
