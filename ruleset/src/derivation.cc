//===- derivation.cc - One pack's rules from another's --------------------===//
#include "quarry/ruleset/derivation.h"

#include "quarry/core/error.h"
#include "quarry/ruleset/rule_key.h"
#include "quarry/verify/refute.h"

#include <algorithm>
#include <deque>
#include <unordered_map>

namespace quarry::ruleset {

namespace {

/// Random shape mixes beyond the uniform ones to look through for choices
/// that type-check.
constexpr int kRandomShapeTries = 16;

/// The rule's two sides at `shapes`, or nullopt when they do not type-check
/// or their outputs' shapes differ.
std::optional<std::pair<Graph, Graph>>
instantiate(const Rule &rule, const std::map<std::string, Shape> &shapes,
            bool kinds_as_declared) {
  try {
    // All weights: a weight value matches pattern variables of either
    // kind, so every rule can apply as the equation it states. As
    // declared: an input matches only rules' input variables, as where
    // the optimizer applies the rule to an activation.
    const bool all_weights = !kinds_as_declared;
    Graph source = rebuilt(rule.source, {}, shapes, all_weights);
    Graph target = rebuilt(rule.target, {}, shapes, all_weights);
    for (size_t i = 0; i < source.outputs().size(); ++i) {
      const TensorType *a = source.type(source.outputs()[i]);
      const TensorType *b = target.type(target.outputs()[i]);
      if (!a || !b || a->shape != b->shape)
        return std::nullopt;
    }
    return std::pair{std::move(source), std::move(target)};
  } catch (const Error &) {
    return std::nullopt;
  }
}

struct Reached {
  Graph graph;
  int32_t parent = -1;
  int32_t step = -1; ///< index into the transformations
};

/// One end of the search: the graphs reached from it, breadth first.
struct Side {
  std::deque<Reached> reached; ///< a deque: a host stays put while matched
  std::unordered_map<uint64_t, int32_t> seen; ///< equation_hash -> index
  size_t level_begin = 0;
  int depth = 0;

  explicit Side(Graph start) {
    seen.emplace(equation_hash(start), 0);
    reached.push_back({std::move(start), -1, -1});
  }
  size_t level_size() const { return reached.size() - level_begin; }
};

/// From both ends at `shapes` (the rule's sides given): each round grows
/// the end with the smaller last level by one level, until a graph one end
/// reached is one the other reached. The target's end applies only the
/// transformations whose inverse is among `by`: a graph it reaches by one
/// rewrites into the graph it came from by the inverse. Two ends of depth
/// d reach what one end reaches at depth 2d with far fewer graphs, and the
/// rules a minimized pack keeps are those whose derivations are long.
std::optional<Derivation>
search_at(std::pair<Graph, Graph> sides,
          const std::map<std::string, Shape> &shapes,
          const std::vector<rewrite::Transformation> &by,
          const std::vector<int32_t> &inverse, const DeriveOptions &opts) {
  Side from(std::move(sides.first));
  Side to(std::move(sides.second));
  // The derivation through reached graphs `a` of `from` and `b` of `to`.
  auto path_through = [&](int32_t a, int32_t b) {
    Derivation d;
    d.shapes = verify::describe_shapes(shapes);
    for (; from.reached[a].parent >= 0; a = from.reached[a].parent)
      d.steps.insert(d.steps.begin(), by[from.reached[a].step].name);
    for (; to.reached[b].parent >= 0; b = to.reached[b].parent)
      d.steps.push_back(by[inverse[to.reached[b].step]].name);
    return d;
  };
  if (auto met = to.seen.find(equation_hash(from.reached[0].graph));
      met != to.seen.end())
    return path_through(0, met->second);
  // The target's end stops when it has no inverses to apply, or nothing
  // new to reach; the source's end may still get there by a rule read
  // forwards only.
  bool target_done = std::none_of(inverse.begin(), inverse.end(),
                                  [](int32_t i) { return i >= 0; });
  auto budget_spent = [&] {
    return from.seen.size() + to.seen.size() >= opts.max_graphs;
  };
  while (from.depth + to.depth < opts.max_steps) {
    const bool forward = target_done || from.level_size() <= to.level_size();
    Side &side = forward ? from : to;
    const Side &other = forward ? to : from;
    const size_t level_end = side.reached.size();
    for (size_t i = side.level_begin; i < level_end; ++i) {
      const rewrite::HostInfo host(side.reached[i].graph);
      for (size_t t = 0; t < by.size(); ++t) {
        if (!forward && inverse[t] < 0)
          continue;
        std::optional<std::pair<int32_t, int32_t>> met;
        by[t].for_each(host, 64, [&](int, Graph &&g) {
          if (met || budget_spent())
            return;
          // Only what the outputs compute counts (a rewrite may leave a
          // variable unused, as the target may not use it), up to the
          // order of commutative operands, which matching ignores too.
          const uint64_t h = equation_hash(g);
          const auto here = static_cast<int32_t>(side.reached.size());
          if (!side.seen.emplace(h, here).second)
            return;
          side.reached.push_back(
              {std::move(g), static_cast<int32_t>(i), static_cast<int32_t>(t)});
          if (auto there = other.seen.find(h); there != other.seen.end())
            met = forward ? std::pair{here, there->second}
                          : std::pair{there->second, here};
        });
        if (met)
          return path_through(met->first, met->second);
      }
      if (budget_spent())
        return std::nullopt;
    }
    if (side.reached.size() == level_end) {
      if (forward)
        return std::nullopt; // all the source reaches, and no meeting
      target_done = true;
      continue;
    }
    side.level_begin = level_end;
    ++side.depth;
  }
  return std::nullopt;
}

/// How many adjacent dimensions of the shapes are equal: square shapes let
/// a rewrite type-check that does not in general (a transpose in place of
/// its operand), so the least square choices go first.
int squareness(const std::map<std::string, Shape> &shapes) {
  int n = 0;
  for (const auto &[name, shape] : shapes)
    for (int i = 0; i + 1 < shape.rank(); ++i)
      n += shape[i] == shape[i + 1];
  return n;
}

} // namespace

std::optional<Derivation> derive(const Rule &rule,
                                 const std::vector<rewrite::Transformation> &by,
                                 const DeriveOptions &opts) {
  auto choices = verify::shape_choices(rule, opts.seed, kRandomShapeTries);
  std::stable_sort(choices.begin(), choices.end(),
                   [](const auto &a, const auto &b) {
                     return squareness(a) < squareness(b);
                   });
  // Each transformation's inverse among `by`, or -1: the rule is not read
  // both ways there.
  std::unordered_map<std::string_view, int32_t> index;
  for (size_t t = 0; t < by.size(); ++t)
    index.emplace(by[t].name, static_cast<int32_t>(t));
  std::vector<int32_t> inverse(by.size(), -1);
  for (size_t t = 0; t < by.size(); ++t)
    if (auto it = index.find(reversed_step(by[t].name)); it != index.end())
      inverse[t] = it->second;
  std::optional<Derivation> first;
  int tried = 0;
  for (const auto &shapes : choices) {
    if (tried >= opts.shape_choices)
      break;
    auto sides = instantiate(rule, shapes, opts.kinds_as_declared);
    if (!sides)
      continue;
    ++tried;
    auto d = search_at(std::move(*sides), shapes, by, inverse, opts);
    if (!d)
      return std::nullopt; // it must hold at every choice tried
    if (!first)
      first = std::move(d);
  }
  return first;
}

} // namespace quarry::ruleset
