//===- derivation.cc - One pack's rules from another's --------------------===//
#include "quarry/coverage/derivation.h"

#include "quarry/core/error.h"
#include "quarry/coverage/rule_key.h"
#include "quarry/verify/refute.h"

#include <algorithm>
#include <deque>
#include <unordered_set>

namespace quarry::coverage {

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

} // namespace

namespace {

/// Breadth first from the rule's source at `shapes` (its sides given), so
/// the derivation found is a shortest one.
std::optional<Derivation> search_at(std::pair<Graph, Graph> sides,
                                    const std::map<std::string, Shape> &shapes,
                                    const std::vector<opt::Transformation> &by,
                                    const DeriveOptions &opts) {
  const uint64_t goal = equation_hash(sides.second);
  // A deque: the host being matched must stay where it is while new graphs
  // are added.
  std::deque<Reached> reached;
  reached.push_back({std::move(sides.first), -1, -1});
  const uint64_t start = equation_hash(reached[0].graph);
  std::unordered_set<uint64_t> seen{start};
  auto path_to = [&](int32_t at) {
    Derivation d;
    d.shapes = verify::describe_shapes(shapes);
    for (; reached[at].parent >= 0; at = reached[at].parent)
      d.steps.insert(d.steps.begin(), by[reached[at].step].name);
    return d;
  };
  if (start == goal)
    return path_to(0);
  size_t level_begin = 0;
  for (int depth = 0; depth < opts.max_steps; ++depth) {
    const size_t level_end = reached.size();
    for (size_t i = level_begin; i < level_end; ++i) {
      const opt::HostInfo host(reached[i].graph);
      for (size_t t = 0; t < by.size(); ++t) {
        int32_t found = -1;
        by[t].for_each(host, 64, [&](int, Graph &&g) {
          if (found >= 0 || seen.size() >= opts.max_graphs)
            return;
          // Only what the outputs compute counts (a rewrite may leave a
          // variable unused, as the target may not use it), up to the
          // order of commutative operands, which matching ignores too.
          const uint64_t h = equation_hash(g);
          if (!seen.insert(h).second)
            return;
          reached.push_back(
              {std::move(g), static_cast<int32_t>(i), static_cast<int32_t>(t)});
          if (h == goal)
            found = static_cast<int32_t>(reached.size() - 1);
        });
        if (found >= 0)
          return path_to(found);
      }
      if (seen.size() >= opts.max_graphs)
        return std::nullopt;
    }
    level_begin = level_end;
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
                                 const std::vector<opt::Transformation> &by,
                                 const DeriveOptions &opts) {
  auto choices = verify::shape_choices(rule, opts.seed, kRandomShapeTries);
  std::stable_sort(choices.begin(), choices.end(),
                   [](const auto &a, const auto &b) {
                     return squareness(a) < squareness(b);
                   });
  std::optional<Derivation> first;
  int tried = 0;
  for (const auto &shapes : choices) {
    if (tried >= opts.shape_choices)
      break;
    auto sides = instantiate(rule, shapes, opts.kinds_as_declared);
    if (!sides)
      continue;
    ++tried;
    auto d = search_at(std::move(*sides), shapes, by, opts);
    if (!d)
      return std::nullopt; // it must hold at every choice tried
    if (!first)
      first = std::move(d);
  }
  return first;
}

} // namespace quarry::coverage
