//===- search.cc - TASO's cost-based backtracking search ------------------===//
#include "quarry/optimizer/search.h"

#include "quarry/core/fork_join.h"
#include "quarry/optimizer/rewrite_cost.h"
#include "quarry/rewrite/search_key.h"

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <list>
#include <memory>
#include <optional>
#include <queue>
#include <unordered_map>
#include <unordered_set>

namespace quarry::opt {

namespace {

using GraphPtr = std::shared_ptr<const Graph>;

/// A graph the search has seen: how to rebuild it, and what it costs.
struct State {
  int32_t parent = -1; ///< -1 for the start
  int32_t transformation = -1;
  int32_t ordinal = -1; ///< rewrite::Transformation::apply_at's argument
  uint64_t hash = 0;
  double cost = 0;
};

struct Entry {
  double cost;
  uint64_t hash;
  int32_t state;
};

struct Cheaper {
  bool operator()(const Entry &a, const Entry &b) const {
    if (a.cost != b.cost)
      return a.cost > b.cost;
    return a.hash > b.hash;
  }
};

/// Built graphs by state, least recently used first out, within a byte
/// budget; the start's graph always stays.
class GraphCache {
public:
  explicit GraphCache(size_t budget) : budget_(budget) {}

  GraphPtr find(int32_t state) {
    auto it = map_.find(state);
    if (it == map_.end())
      return nullptr;
    order_.splice(order_.end(), order_, it->second.where);
    return it->second.graph;
  }

  void put(int32_t state, GraphPtr g) {
    if (map_.count(state))
      return;
    const size_t bytes = graph_bytes(*g);
    order_.push_back(state);
    map_.emplace(state, Item{std::move(g), bytes, std::prev(order_.end())});
    bytes_ += bytes;
    while (bytes_ > budget_ && order_.size() > 1) {
      const int32_t victim =
          order_.front() == 0 ? *std::next(order_.begin()) : order_.front();
      auto it = map_.find(victim);
      bytes_ -= it->second.bytes;
      order_.erase(it->second.where);
      map_.erase(it);
    }
  }

  size_t bytes() const { return bytes_; }

private:
  struct Item {
    GraphPtr graph;
    size_t bytes;
    std::list<int32_t>::iterator where;
  };
  size_t budget_, bytes_ = 0;
  std::list<int32_t> order_;
  std::unordered_map<int32_t, Item> map_;
};

/// One rewrite of the graph being expanded, viewed (rewrite/rewrite_view.h):
/// its hash, and its cost (rewrite_cost.h) unless one of its configurations
/// has none yet; then the splice is kept, to be costed in order after the
/// others.
/// One thread's working memory for views and their costs.
struct Scratch {
  rewrite::ViewScratch view;
  CostScratch cost;
};

struct Candidate {
  int32_t ordinal = 0;
  uint64_t hash = 0;
  std::optional<double> cost;
  std::optional<rewrite::OwnedSplice> pending;
  bool seen = false; ///< seen before this expansion: not costed
};

class Search {
public:
  Search(const std::vector<rewrite::Transformation> &ts, CostModel &cost,
         const SearchOptions &opts)
      : ts_(ts), cost_(cost), opts_(opts),
        arena_(opts.threads > 0 ? opts.threads : tbb::task_arena::automatic),
        cache_(opts.memory_budget / 2) {}

  SearchResult run(const Graph &start,
                   const std::function<void(const SearchProgress &)> &progress);

private:
  GraphPtr materialize(int32_t s);
  std::vector<std::vector<Candidate>> generate(const Graph &g);
  /// The cost of a candidate whose view had no cost.
  double cost_pending(const rewrite::OwnedSplice &s);
  size_t state_bytes() const {
    return states_.capacity() * sizeof(State) + seen_.size() * 32 +
           queue_.size() * sizeof(Entry) + refused_.bytes();
  }
  void note_memory(size_t transient) {
    result_.peak_bytes = std::max(result_.peak_bytes,
                                  state_bytes() + cache_.bytes() + transient);
  }

  const std::vector<rewrite::Transformation> &ts_;
  CostModel &cost_;
  const SearchOptions &opts_;
  tbb::task_arena arena_;
  GraphCache cache_;
  rewrite::RefusedShapes refused_;
  /// The graph being expanded, indexed for views and for their costs.
  std::unique_ptr<rewrite::RewriteHost> index_;
  std::unique_ptr<CostIndex> cost_index_;
  Scratch serial_scratch_;
  std::vector<State> states_;
  std::unordered_set<uint64_t> seen_;
  std::priority_queue<Entry, std::vector<Entry>, Cheaper> queue_;
  SearchResult result_;
};

GraphPtr Search::materialize(int32_t s) {
  std::vector<int32_t> chain;
  GraphPtr g;
  for (int32_t at = s; !(g = cache_.find(at)); at = states_[at].parent)
    chain.push_back(at);
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const State &st = states_[*it];
    const rewrite::HostInfo host(*g);
    auto next = ts_[st.transformation].apply_at(host, st.ordinal);
    if (!next)
      throw Error("search: state " + std::to_string(*it) +
                  " could not be rebuilt (a transformation is not "
                  "deterministic)");
    g = std::make_shared<const Graph>(std::move(*next));
    cache_.put(*it, g);
    ++result_.rebuilt;
  }
  return g;
}

std::vector<std::vector<Candidate>> Search::generate(const Graph &g) {
  const rewrite::HostInfo host(g);
  index_ = std::make_unique<rewrite::RewriteHost>(g);
  cost_index_ = std::make_unique<CostIndex>(*index_, cost_);
  const rewrite::RewriteHost &index = *index_;
  // Two passes, each spread over the threads: every transformation's
  // matches, then every proposal's view. One pass (a task per
  // transformation) left a thread waiting on the few transformations
  // that propose hundreds of rewrites per graph.
  struct Proposal {
    int32_t ordinal;
    uint64_t refusal_key; ///< 0 for a fusion's
    rewrite::OwnedSplice splice;
  };
  std::vector<std::vector<Proposal>> proposed(ts_.size());
  const ForkJoin match_edges;
  arena_.execute([&] {
    tbb::parallel_for(size_t{0}, ts_.size(), match_edges.task([&](size_t i) {
      // A rule's pattern is the same in every graph: its refusals for
      // shapes hold in all of them.
      uint64_t key = 0;
      const auto unrefused = [&](const rewrite::MatchSite &site) {
        key = refusal_key(i + 1, index, site);
        return !refused_.contains(key);
      };
      ts_[i].for_each_splice(
          host, opts_.max_matches,
          [&](int ordinal, rewrite::OwnedSplice &&s) {
            proposed[i].push_back(
                {ordinal, ts_[i].rule ? key : 0, std::move(s)});
          },
          unrefused);
    }));
  });
  match_edges.joined();
  // Counted before the views move the pending ones into candidates.
  size_t transient = 0;
  for (const auto &ps : proposed)
    for (const Proposal &pr : ps)
      transient += sizeof(Proposal) + pr.splice.splice.bindings.size() * 64;

  std::vector<std::pair<int32_t, int32_t>> all; // (transformation, proposal)
  for (size_t i = 0; i < proposed.size(); ++i)
    for (size_t k = 0; k < proposed[i].size(); ++k)
      all.emplace_back(static_cast<int32_t>(i), static_cast<int32_t>(k));
  std::vector<std::optional<Candidate>> viewed(all.size());
  tbb::enumerable_thread_specific<Scratch> scratch;
  const ForkJoin view_edges;
  arena_.execute([&] {
    tbb::parallel_for(size_t{0}, all.size(), view_edges.task([&](size_t n) {
      Proposal &pr = proposed[all[n].first][all[n].second];
      Scratch &mine = scratch.local();
      const rewrite::RewriteView view(index, pr.splice.splice, mine.view,
                                      {&refused_, pr.refusal_key});
      if (view.outcome() == rewrite::RewriteView::Outcome::Refused)
        return;
      Candidate c;
      c.ordinal = pr.ordinal;
      if (view.outcome() == rewrite::RewriteView::Outcome::Made) {
        c.hash = view.key();
        // Graphs seen before this expansion are not costed again.
        c.seen = seen_.count(c.hash) > 0;
        if (!c.seen)
          c.cost = rewrite_cost(view, *cost_index_, mine.cost);
      } else {
        const std::optional<Graph> made = view.build();
        if (!made)
          return;
        c.hash = rewrite::search_key(*made);
        const auto running = cost_.running_nodes(*made);
        if (cost_.all_known(running.hashes))
          c.cost = cost_.cost_of_known(running.hashes);
      }
      if (!c.cost && !c.seen)
        c.pending = std::move(pr.splice);
      viewed[n] = std::move(c);
    }));
  });
  view_edges.joined();

  std::vector<std::vector<Candidate>> out(ts_.size());
  for (size_t n = 0; n < all.size(); ++n)
    if (viewed[n])
      out[all[n].first].push_back(std::move(*viewed[n]));
  note_memory(transient);
  return out;
}

double Search::cost_pending(const rewrite::OwnedSplice &s) {
  // Costing the candidates before may have costed its configurations.
  const rewrite::RewriteView view(*index_, s.splice, serial_scratch_.view);
  if (view.outcome() == rewrite::RewriteView::Outcome::Made)
    if (const auto cost =
            rewrite_cost(view, *cost_index_, serial_scratch_.cost))
      return *cost;
  const std::optional<Graph> made = view.build();
  if (!made)
    throw Error("search: a rewrite viewed as made was refused");
  return cost_.graph_cost(*made);
}

SearchResult
Search::run(const Graph &start,
            const std::function<void(const SearchProgress &)> &progress) {
  const auto t0 = std::chrono::steady_clock::now();
  State first;
  first.hash = rewrite::search_key(start);
  first.cost = cost_.graph_cost(start);
  states_.push_back(first);
  cache_.put(0, std::make_shared<const Graph>(start));
  seen_.insert(first.hash);
  queue_.push({first.cost, first.hash, 0});
  result_.initial_cost = first.cost;
  int32_t best = 0;

  while (!queue_.empty() && result_.expanded < opts_.budget) {
    if (state_bytes() > opts_.memory_budget / 2) {
      result_.stopped_by_memory = true;
      break;
    }
    const int32_t cur = queue_.top().state;
    queue_.pop();
    ++result_.expanded;
    const GraphPtr g = materialize(cur);
    auto gens = generate(*g);
    for (size_t t = 0; t < gens.size(); ++t) {
      StartMatch *start_match = nullptr;
      if (cur == 0 && !gens[t].empty()) {
        result_.at_start.push_back({static_cast<int>(t), 0, 0.0});
        start_match = &result_.at_start.back();
      }
      for (Candidate &c : gens[t]) {
        ++result_.candidates;
        if (start_match)
          ++start_match->rewrites;
        if (c.seen || !seen_.insert(c.hash).second)
          continue;
        ++result_.distinct;
        State next;
        next.parent = cur;
        next.transformation = static_cast<int32_t>(t);
        next.ordinal = c.ordinal;
        next.hash = c.hash;
        next.cost = c.cost ? *c.cost : cost_pending(*c.pending);
        const auto id = static_cast<int32_t>(states_.size());
        states_.push_back(next);
        if (next.cost < states_[best].cost)
          best = id;
        if (next.cost < opts_.alpha * states_[best].cost)
          queue_.push({next.cost, next.hash, id});
        if (start_match &&
            (start_match->best_cost == 0 || next.cost < start_match->best_cost))
          start_match->best_cost = next.cost;
      }
    }
    note_memory(0);
    if (progress)
      progress(
          {result_.expanded, queue_.size(), seen_.size(), states_[best].cost});
  }

  // The best state (the first seen at the lowest cost), then the next
  // cheapest ones, ties by hash as in the queue.
  std::vector<int32_t> order;
  for (size_t i = 0; i < states_.size(); ++i)
    if (static_cast<int32_t>(i) != best)
      order.push_back(static_cast<int32_t>(i));
  const size_t keep = std::min(
      order.size(), static_cast<size_t>(std::max(opts_.keep_best, 1) - 1));
  std::partial_sort(order.begin(), order.begin() + keep, order.end(),
                    [&](int32_t a, int32_t b) {
                      return Cheaper{}({states_[b].cost, states_[b].hash, b},
                                       {states_[a].cost, states_[a].hash, a});
                    });
  order.resize(keep);
  order.insert(order.begin(), best);
  for (size_t k = 0; k < order.size(); ++k) {
    RankedGraph r;
    r.graph = *materialize(order[k]);
    r.cost = states_[order[k]].cost;
    for (int32_t at = order[k]; states_[at].parent >= 0;
         at = states_[at].parent) {
      r.steps.push_back(states_[at].transformation);
      r.ordinals.push_back(states_[at].ordinal);
    }
    std::reverse(r.steps.begin(), r.steps.end());
    std::reverse(r.ordinals.begin(), r.ordinals.end());
    result_.ranked.push_back(std::move(r));
  }
  result_.best = result_.ranked[0].graph;
  result_.best_cost = result_.ranked[0].cost;
  result_.steps = result_.ranked[0].steps;
  result_.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  return result_;
}

} // namespace

size_t graph_bytes(const Graph &g) {
  size_t bytes = sizeof(Graph) + g.outputs().capacity() * sizeof(ValueRef);
  for (const Node &n : g.nodes()) {
    bytes += sizeof(Node) + n.name.capacity() +
             n.inputs.capacity() * sizeof(ValueRef);
    for (size_t a = 0; a < n.attrs.size(); ++a) {
      bytes += sizeof(AttrValue);
      if (auto *l = std::get_if<std::vector<int64_t>>(&n.attrs.value(a)))
        bytes += l->capacity() * sizeof(int64_t);
    }
    for (const TensorType &t : n.types)
      bytes += sizeof(TensorType) + t.shape.dims.capacity() * sizeof(int64_t) +
               t.splits.capacity() * sizeof(SplitRef);
    // A node's name in the variables' index.
    if (n.is_variable())
      bytes += 64 + n.name.capacity();
  }
  return bytes;
}

SearchResult
search(const Graph &start,
       const std::vector<rewrite::Transformation> &transformations,
       CostModel &cost, const SearchOptions &opts,
       const std::function<void(const SearchProgress &)> &progress) {
  return Search(transformations, cost, opts).run(start, progress);
}

} // namespace quarry::opt
