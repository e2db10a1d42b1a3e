//===- shape_search.cc - Variable shapes that type-check a rule -----------===//
#include "quarry/verify/shape_search.h"

#include "quarry/core/error.h"

#include <algorithm>
#include <optional>

namespace quarry::verify {

namespace {

/// Shapes a constant of shape `s` suggests for the variables beside it: its
/// own, with a smaller leading dimension (a batch, a kernel's outputs), and
/// for a matrix its transpose and either side halved or doubled.
void add_suggestions(const Shape &s, std::vector<Shape> &pool) {
  auto add = [&](Shape x) {
    if (std::find(pool.begin(), pool.end(), x) == pool.end())
      pool.push_back(std::move(x));
  };
  if (s.rank() == 0)
    return;
  add(s);
  for (int64_t lead : {2, 1}) {
    Shape x = s;
    x[0] = lead;
    add(x);
  }
  if (s.rank() == 2) {
    add(Shape{s[1], s[0]});
    add(Shape{s[0], 2});
    add(Shape{2, s[1]});
  }
}

class Search {
public:
  Search(const Rule &rule, std::vector<Shape> pool,
         const std::set<std::string> &scalars, const ShapeSearchOptions &opts)
      : rule_(rule), pool_(std::move(pool)), scalars_(scalars), opts_(opts) {
    for (const Graph *g : {&rule.source, &rule.target})
      for (const Node &n : g->nodes())
        if (op_info(n.kind).traits.constant)
          for (const TensorType &t : n.types)
            add_suggestions(t.shape, pool_);
    for (int side = 0; side < 2; ++side) {
      const Graph &g = graph(side);
      types_[side].resize(g.num_nodes());
      for (int32_t id = 0; id < g.num_nodes(); ++id)
        if (!g.node(id).is_variable())
          order_.push_back({side, id});
    }
  }

  std::vector<std::map<std::string, Shape>> run() {
    step(0);
    return std::move(found_);
  }

private:
  const Graph &graph(int side) const {
    return side == 0 ? rule_.source : rule_.target;
  }
  bool done() const {
    return found_.size() >= opts_.max_found || inferred_ >= opts_.max_inferred;
  }

  /// The operator order_[k] typed, its unshaped variable operands first
  /// given each shape of the pool in turn.
  void step(size_t k) {
    if (done())
      return;
    if (k == order_.size())
      return finish();
    const auto [side, id] = order_[k];
    const Node &n = graph(side).node(id);
    for (const ValueRef &in : n.inputs) {
      const Node &v = graph(side).node(in.node);
      if (!v.is_variable() || shapes_.count(v.name))
        continue;
      if (scalars_.count(v.name)) {
        shapes_[v.name] = Shape{};
        step(k);
      } else {
        for (const Shape &s : pool_) {
          shapes_[v.name] = s;
          step(k);
          if (done())
            break;
        }
      }
      shapes_.erase(v.name);
      return;
    }
    if (op_info(n.kind).traits.constant) {
      types_[side][id] = n.types;
      return step(k + 1);
    }
    std::vector<TensorType> in_types;
    for (const ValueRef &in : n.inputs)
      in_types.push_back(type_of(side, in));
    ++inferred_;
    std::optional<std::vector<TensorType>> out;
    try {
      out = infer_types(n.kind, n.attrs, in_types);
    } catch (const Error &) {
      return; // these shapes do not fit this operator
    }
    if (!out)
      return;
    types_[side][id] = std::move(*out);
    step(k + 1);
  }

  TensorType type_of(int side, const ValueRef &ref) const {
    const Node &n = graph(side).node(ref.node);
    if (n.is_variable())
      return TensorType(shapes_.at(n.name));
    return types_[side][ref.node][ref.output];
  }

  void finish() {
    const auto &a = rule_.source.outputs();
    const auto &b = rule_.target.outputs();
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
      // An output that is a variable the search never reached has no shape.
      const Node &x = rule_.source.node(a[i].node);
      const Node &y = rule_.target.node(b[i].node);
      if ((x.is_variable() && !shapes_.count(x.name)) ||
          (y.is_variable() && !shapes_.count(y.name)))
        return;
      if (type_of(0, a[i]).shape != type_of(1, b[i]).shape)
        return;
    }
    // A variable no operator uses takes the pool's first shape.
    std::map<std::string, Shape> all = shapes_;
    for (const Graph *g : {&rule_.source, &rule_.target})
      for (const Node &n : g->nodes())
        if (n.is_variable() && !all.count(n.name))
          all[n.name] = scalars_.count(n.name) ? Shape{} : pool_.front();
    found_.push_back(std::move(all));
  }

  const Rule &rule_;
  std::vector<Shape> pool_;
  const std::set<std::string> &scalars_;
  ShapeSearchOptions opts_;
  std::vector<std::pair<int, int32_t>> order_; ///< operators, by side
  std::vector<std::vector<TensorType>> types_[2];
  std::map<std::string, Shape> shapes_;
  size_t inferred_ = 0;
  std::vector<std::map<std::string, Shape>> found_;
};

} // namespace

std::vector<std::map<std::string, Shape>>
search_shapes(const Rule &rule, const std::vector<Shape> &pool,
              const std::set<std::string> &scalars,
              const ShapeSearchOptions &opts) {
  if (pool.empty())
    return {};
  return Search(rule, pool, scalars, opts).run();
}

} // namespace quarry::verify
