//===- refute.cc - Counterexamples for wrong rules ------------------------===//
#include "quarry/verify/refute.h"

#include "quarry/core/hash.h"
#include "quarry/verify/numeric_check.h"
#include "quarry/verify/shape_search.h"

#include <algorithm>
#include <map>
#include <set>

namespace quarry::verify {

namespace {

/// Small shapes of ranks 2 to 4 that fit matmul, conv2d (3x3 kernels over
/// 3x3 images) and pooling.
const std::vector<Shape> &candidate_shapes() {
  static const std::vector<Shape> shapes = {
      Shape{2, 2},       Shape{3, 3},       Shape{2, 3},
      Shape{3, 2},       Shape{2, 2, 3, 3}, Shape{1, 2, 3, 3},
      Shape{2, 1, 3, 3}, Shape{4, 2, 3, 3}, Shape{2, 4, 3, 3},
      Shape{2, 2, 1, 1}, Shape{2, 2, 2},    Shape{2, 2, 4, 4}};
  return shapes;
}

/// The candidates and a few matrices more for search_shapes(): a rule such
/// as matmul(x, concat(x, y)) needs x of shape [n, 2n], beside other
/// variables that must match it.
const std::vector<Shape> &search_pool() {
  static const std::vector<Shape> shapes = [] {
    std::vector<Shape> s = candidate_shapes();
    for (Shape m :
         {Shape{1, 2}, Shape{2, 1}, Shape{2, 4}, Shape{4, 2}, Shape{4, 4}})
      s.push_back(std::move(m));
    return s;
  }();
  return shapes;
}

/// Variables used as scalar_mul's scalar operand need rank 0.
std::set<std::string> scalar_vars(const Rule &r) {
  std::set<std::string> out;
  for (const Graph *g : {&r.source, &r.target})
    for (const Node &n : g->nodes())
      if (n.kind == OpKind::ScalarMul &&
          g->node(n.inputs[1].node).is_variable())
        out.insert(g->node(n.inputs[1].node).name);
  return out;
}

bool has_unshaped_constant(const Graph &g) {
  for (const Node &n : g.nodes())
    if (op_info(n.kind).traits.constant && n.types.empty())
      return true;
  return false;
}

} // namespace

std::vector<std::map<std::string, Shape>>
shape_choices(const Rule &rule, uint64_t seed, int random_tries) {
  std::vector<std::map<std::string, Shape>> out;
  if (has_unshaped_constant(rule.source) || has_unshaped_constant(rule.target))
    return out;
  std::vector<std::string> vars;
  for (const Node &n : rule.source.nodes())
    if (n.is_variable())
      vars.push_back(n.name);
  const std::set<std::string> scalars = scalar_vars(rule);
  const auto &cands = candidate_shapes();
  auto choice = [&](auto pick_for) {
    std::map<std::string, Shape> shapes;
    for (size_t i = 0; i < vars.size(); ++i)
      shapes[vars[i]] = scalars.count(vars[i]) ? Shape{} : cands[pick_for(i)];
    out.push_back(std::move(shapes));
  };
  for (size_t pick = 0; pick < cands.size(); ++pick)
    choice([&](size_t) { return pick; });
  // Shapes that type-check, searched for: rules whose variables need
  // different shapes (beside each other, or beside a constant's) are
  // seldom met by the choices around these.
  for (auto &shapes : search_shapes(rule, search_pool(), scalars))
    if (std::find(out.begin(), out.end(), shapes) == out.end())
      out.push_back(std::move(shapes));
  for (int attempt = 0; attempt < random_tries; ++attempt)
    choice([&](size_t i) {
      const int salt = static_cast<int>(cands.size()) + attempt;
      return mix64(hash_combine(hash_combine(seed, salt), i)) % cands.size();
    });
  return out;
}

std::string describe_shapes(const std::map<std::string, Shape> &shapes) {
  std::string s;
  for (const auto &[name, shape] : shapes)
    s += (s.empty() ? "" : " ") + name + ":" + shape.str();
  return s;
}

std::optional<Counterexample> find_counterexample(const Rule &rule,
                                                  uint64_t seed,
                                                  int random_tries,
                                                  const ShapeFilter &wanted) {
  std::optional<Counterexample> unwanted, shapes_only;
  for (const auto &shapes : shape_choices(rule, seed, random_tries)) {
    try {
      const Graph a = with_variable_shapes(rule.source, shapes);
      const Graph b = with_variable_shapes(rule.target, shapes);
      const NumericComparison c = compare_numerically(a, b, seed);
      if (!c.definitely_different())
        continue;
      if (c.shapes_equal) {
        Counterexample found{describe_shapes(shapes) +
                                 ": values differ in the field and in float "
                                 "(max |diff| " +
                                 std::to_string(c.float_max_diff) + ")",
                             true, shapes};
        if (!wanted || wanted(shapes))
          return found;
        if (!unwanted)
          unwanted = std::move(found);
        continue;
      }
      if (!shapes_only)
        shapes_only = Counterexample{
            describe_shapes(shapes) + ": output shapes differ", false, shapes};
    } catch (const Error &) {
      // These shapes do not type-check for one side; try others.
    }
  }
  return unwanted ? unwanted : shapes_only;
}

} // namespace quarry::verify
