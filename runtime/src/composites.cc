//===- composites.cc - GELU and SiLU written out, found again -------------===//
#include "composites.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace quarry::runtime {

namespace {

/// The readers of every dynamic value (one entry per operand that reads
/// it), and the graph's outputs, over a plan's steps.
class Readers {
public:
  Readers(const Graph &g, const Plan &p) : g_(g), p_(p) {
    for (int32_t id : p.steps)
      for (ValueRef v : g.node(id).inputs)
        of_[v].push_back(id);
  }
  const std::vector<int32_t> &of(ValueRef v) const {
    static const std::vector<int32_t> none;
    auto it = of_.find(v);
    return it == of_.end() ? none : it->second;
  }
  bool is_output(ValueRef v) const {
    return std::find(g_.outputs().begin(), g_.outputs().end(), v) !=
           g_.outputs().end();
  }
  /// The one step reading `v` (through one operand), when `v` is no output.
  std::optional<int32_t> sole(ValueRef v) const {
    const auto &r = of(v);
    if (r.size() != 1 || is_output(v))
      return std::nullopt;
    return r[0];
  }
  /// `v`'s value when it is a static scalar.
  std::optional<float> scalar(ValueRef v) const {
    const PlannedValue &pv = p_.value(v);
    if (!pv.is_static || pv.type.shape.numel() != 1)
      return std::nullopt;
    return p_.static_values[v.node][v.output].data.at(0);
  }

private:
  const Graph &g_;
  const Plan &p_;
  std::map<ValueRef, std::vector<int32_t>> of_;
};

/// Whether `a` is `want` to float precision (a constant an exporter
/// wrote as sqrt(2), 1/sqrt(2), 1, 0.5 or 2).
bool near(std::optional<float> a, double want) {
  return a && std::fabs(*a - want) <= 4e-7 * std::fabs(want);
}

/// A binary node of fn `fn` (add, mul, div) over equal-shaped or scalar
/// operands: its two operands, or nullopt.
std::optional<std::pair<ValueRef, ValueRef>> binary(const Node &n,
                                                    ops::BroadcastFn fn) {
  using B = ops::BroadcastFn;
  const bool is =
      (n.kind == OpKind::Broadcast &&
       n.attrs.i(ops::Broadcast::kFn) == static_cast<int64_t>(fn)) ||
      (n.kind == OpKind::EwAdd && fn == B::Add) ||
      (n.kind == OpKind::EwMul && fn == B::Mul) ||
      (n.kind == OpKind::ScalarMul && fn == B::Mul);
  if (!is || n.inputs.size() != 2)
    return std::nullopt;
  return std::pair{n.inputs[0], n.inputs[1]};
}

/// The operand of commutative node `n` other than `v`, when `v` is one.
std::optional<ValueRef> other_than(const Node &n, ops::BroadcastFn fn,
                                   ValueRef v) {
  const auto ops = binary(n, fn);
  if (!ops)
    return std::nullopt;
  if (ops->first == v)
    return ops->second;
  if (ops->second == v)
    return ops->first;
  return std::nullopt;
}

class Matcher {
public:
  Matcher(const Graph &g, const Plan &p) : g_(g), p_(p), r_(g, p) {}

  std::optional<Composite> at(int32_t id) const {
    const Node &n = g_.node(id);
    if (n.kind == OpKind::Sigmoid)
      return silu(id);
    if (n.kind != OpKind::Pointwise)
      return std::nullopt;
    using F = ops::PointwiseFn;
    const auto fn = static_cast<F>(n.attrs.i(ops::Pointwise::kFn));
    const double alpha = n.attrs.real(ops::Pointwise::kAlpha),
                 beta = n.attrs.real(ops::Pointwise::kBeta);
    if (fn == F::Erf)
      return gelu(id);
    if (fn == F::Clip && alpha == 0.0 && beta == 6.0)
      return hard_swish_of_clip(id);
    if (fn == F::HardSigmoid && near(alpha, 1.0 / 6) && beta == 0.5)
      return hard_swish_of_hard_sigmoid(id);
    return std::nullopt;
  }

private:
  /// x * sigmoid(x), from the sigmoid.
  std::optional<Composite> silu(int32_t s) const {
    const ValueRef x = g_.node(s).inputs[0];
    const auto m = r_.sole({s, 0});
    if (!m || other_than(g_.node(*m), ops::BroadcastFn::Mul, {s, 0}) != x)
      return std::nullopt;
    return made(ops::PointwiseFn::Silu, x, {s, *m});
  }

  /// x * (1 + erf(x / sqrt 2)) / 2 in the orders exporters write it, from
  /// the erf.
  std::optional<Composite> gelu(int32_t e) const {
    using B = ops::BroadcastFn;
    // d = x / sqrt 2, or x * (1 / sqrt 2).
    const int32_t d = g_.node(e).inputs[0].node;
    if (!r_.sole({d, 0}) || !p_.values[d].size() || p_.value({d, 0}).is_static)
      return std::nullopt;
    std::optional<ValueRef> x;
    if (auto ops = binary(g_.node(d), B::Div);
        ops && near(r_.scalar(ops->second), M_SQRT2))
      x = ops->first;
    else if (auto ops = binary(g_.node(d), B::Mul)) {
      if (near(r_.scalar(ops->second), M_SQRT1_2))
        x = ops->first;
      else if (near(r_.scalar(ops->first), M_SQRT1_2))
        x = ops->second;
    }
    if (!x)
      return std::nullopt;
    // a = erf + 1.
    const auto a = r_.sole({e, 0});
    if (!a || !near(r_.scalar(other_than(g_.node(*a), B::Add, {e, 0})
                                  .value_or(ValueRef{e, 0})),
                    1.0))
      return std::nullopt;
    const auto next = r_.sole({*a, 0});
    if (!next)
      return std::nullopt;
    // Either m = x * a, then y = m * 0.5 (or m / 2) ...
    if (other_than(g_.node(*next), B::Mul, {*a, 0}) == *x) {
      const auto y = r_.sole({*next, 0});
      if (!y || !halves(*y, {*next, 0}))
        return std::nullopt;
      return made(ops::PointwiseFn::Gelu, *x, {d, e, *a, *next, *y});
    }
    // ... or h = x * 0.5 first, then y = h * a.
    const auto h = other_than(g_.node(*next), B::Mul, {*a, 0});
    if (!h || !r_.sole(*h) || p_.value(*h).is_static || !halves(h->node, *x))
      return std::nullopt;
    std::vector<int32_t> nodes = {d, e, *a, h->node, *next};
    std::sort(nodes.begin(), nodes.end() - 1); // execution order: ids
    return made(ops::PointwiseFn::Gelu, *x, nodes);
  }

  /// x * clip(x + 3, 0, 6) / 6 (or x * (clip(x + 3, 0, 6) / 6)), from
  /// the clip.
  std::optional<Composite> hard_swish_of_clip(int32_t c) const {
    using B = ops::BroadcastFn;
    const int32_t a = g_.node(c).inputs[0].node;
    if (!r_.sole({a, 0}) || p_.values[a].empty() || p_.value({a, 0}).is_static)
      return std::nullopt;
    const auto ops = binary(g_.node(a), B::Add);
    if (!ops)
      return std::nullopt;
    const ValueRef x = near(r_.scalar(ops->second), 3.0)  ? ops->first
                       : near(r_.scalar(ops->first), 3.0) ? ops->second
                                                          : ValueRef{a, 0};
    const auto next = r_.sole({c, 0});
    if (x == ValueRef{a, 0} || !next)
      return std::nullopt;
    // Either m = x * clip, then y = m / 6 ...
    if (other_than(g_.node(*next), B::Mul, {c, 0}) == x) {
      const auto y = r_.sole({*next, 0});
      if (!y || !divides_by(*y, {*next, 0}, 6.0))
        return std::nullopt;
      return made(ops::PointwiseFn::HardSwish, x, {a, c, *next, *y});
    }
    // ... or d = clip / 6, then y = x * d.
    if (!divides_by(*next, {c, 0}, 6.0))
      return std::nullopt;
    const auto y = r_.sole({*next, 0});
    if (!y || other_than(g_.node(*y), B::Mul, {*next, 0}) != x)
      return std::nullopt;
    return made(ops::PointwiseFn::HardSwish, x, {a, c, *next, *y});
  }

  /// x * hard_sigmoid(x) with alpha 1/6 and beta 1/2, from the hard
  /// sigmoid.
  std::optional<Composite> hard_swish_of_hard_sigmoid(int32_t h) const {
    const ValueRef x = g_.node(h).inputs[0];
    const auto m = r_.sole({h, 0});
    if (!m || other_than(g_.node(*m), ops::BroadcastFn::Mul, {h, 0}) != x)
      return std::nullopt;
    return made(ops::PointwiseFn::HardSwish, x, {h, *m});
  }

  /// Whether node `id` is v * 0.5 or v / 2.
  bool halves(int32_t id, ValueRef v) const { return divides_by(id, v, 2.0); }

  /// Whether node `id` is v / d or v * (1 / d).
  bool divides_by(int32_t id, ValueRef v, double d) const {
    const Node &n = g_.node(id);
    if (auto k = other_than(n, ops::BroadcastFn::Mul, v))
      return near(r_.scalar(*k), 1.0 / d);
    auto ops = binary(n, ops::BroadcastFn::Div);
    return ops && ops->first == v && near(r_.scalar(ops->second), d);
  }

  /// The composite of `nodes`, when each keeps x's shape and only the
  /// last one's value leaves it.
  std::optional<Composite> made(ops::PointwiseFn fn, ValueRef x,
                                std::vector<int32_t> nodes) const {
    const PlannedValue &xv = p_.value(x);
    if (xv.is_static)
      return std::nullopt;
    for (int32_t id : nodes)
      if (p_.values[id].empty() || p_.value({id, 0}).is_static ||
          p_.value({id, 0}).type.shape != xv.type.shape)
        return std::nullopt;
    Composite c{fn, x, std::move(nodes), false};
    const auto &readers = r_.of(x);
    c.reads_x_alone =
        !r_.is_output(x) &&
        std::all_of(readers.begin(), readers.end(), [&](int32_t r) {
          return std::find(c.nodes.begin(), c.nodes.end(), r) != c.nodes.end();
        });
    return c;
  }

  const Graph &g_;
  const Plan &p_;
  Readers r_;
};

} // namespace

Composites find_composites(const Graph &g, const Plan &p) {
  const Matcher m(g, p);
  Composites out;
  for (int32_t id : p.steps)
    if (auto c = m.at(id))
      out.emplace(c->nodes.front(), std::move(*c));
  return out;
}

} // namespace quarry::runtime
