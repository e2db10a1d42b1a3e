//===- composites.cc - GELU and SiLU written out, found again -------------===//
#include "composites.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace quarry::runtime {

namespace {

/// `v`'s value when it is a static scalar.
std::optional<float> static_scalar(const Plan &p, ValueRef v) {
  const PlannedValue &pv = p.value(v);
  if (!pv.is_static || pv.type.shape.numel() != 1)
    return std::nullopt;
  return p.static_values[v.node][v.output].data.at(0);
}

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
  std::optional<float> scalar(ValueRef v) const { return static_scalar(p_, v); }

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
      return times_input(id, ops::PointwiseFn::Silu);
    if (n.kind == OpKind::ReduceMean)
      return layer_norm(id);
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
      return times_input(id, F::HardSwish);
    return std::nullopt;
  }

private:
  /// x * f(x), from f's node `f`: a SiLU (f the sigmoid), a HardSwish (f
  /// the hard sigmoid of alpha 1/6 and beta 1/2).
  std::optional<Composite> times_input(int32_t f, ops::PointwiseFn fn) const {
    const ValueRef x = g_.node(f).inputs[0];
    const auto m = r_.sole({f, 0});
    if (!m || other_than(g_.node(*m), ops::BroadcastFn::Mul, {f, 0}) != x)
      return std::nullopt;
    return made(fn, x, {f, *m});
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

  /// (x - mean) / sqrt(mean((x - mean)^2) + eps) * g + b over the last
  /// axis, from the first mean.
  std::optional<Composite> layer_norm(int32_t m) const {
    using B = ops::BroadcastFn;
    const Node &mean = g_.node(m);
    const ValueRef x = mean.inputs[0];
    const int rank = p_.value(x).type.shape.rank();
    auto over_last_axis = [&](const Node &r) {
      const auto &axes = r.attrs.list(ops::ReduceMean::kAxes);
      return axes.size() == 1 && (axes[0] == -1 || axes[0] == rank - 1) &&
             r.attrs.i(ops::ReduceMean::kKeepDims) != 0;
    };
    if (rank < 1 || !over_last_axis(mean))
      return std::nullopt;
    // d = x - mean, read by the square and the division.
    const auto &mean_readers = r_.of({m, 0});
    if (mean_readers.size() != 1 || r_.is_output({m, 0}))
      return std::nullopt;
    const int32_t d = mean_readers[0];
    const auto sub = binary(g_.node(d), B::Sub);
    if (!sub || sub->first != x || sub->second != ValueRef{m, 0})
      return std::nullopt;
    // (d * d reads it twice.)
    std::vector<int32_t> d_readers = r_.of({d, 0});
    std::sort(d_readers.begin(), d_readers.end());
    d_readers.erase(std::unique(d_readers.begin(), d_readers.end()),
                    d_readers.end());
    if (d_readers.size() != 2 || r_.is_output({d, 0}))
      return std::nullopt;
    // p = d^2 (Pow by 2 or d * d), v = mean(p), a = v + eps, s = sqrt(a).
    int32_t p = -1, y = -1;
    for (int32_t r : d_readers) {
      const Node &n = g_.node(r);
      const auto pow = binary(n, B::Pow);
      const auto div = binary(n, B::Div);
      if ((pow && pow->first == ValueRef{d, 0} &&
           near(r_.scalar(pow->second), 2.0)) ||
          other_than(n, B::Mul, {d, 0}) == ValueRef{d, 0})
        p = r;
      else if (div && div->first == ValueRef{d, 0})
        y = r;
    }
    if (p < 0 || y < 0)
      return std::nullopt;
    const auto v = r_.sole({p, 0});
    if (!v || g_.node(*v).kind != OpKind::ReduceMean ||
        !over_last_axis(g_.node(*v)))
      return std::nullopt;
    const auto a = r_.sole({*v, 0});
    const auto eps =
        a ? other_than(g_.node(*a), B::Add, {*v, 0}) : std::nullopt;
    if (!eps || !r_.scalar(*eps))
      return std::nullopt;
    const auto s = r_.sole({*a, 0});
    if (!s || g_.node(*s).kind != OpKind::Pointwise ||
        g_.node(*s).attrs.i(ops::Pointwise::kFn) !=
            static_cast<int64_t>(ops::PointwiseFn::Sqrt) ||
        binary(g_.node(y), B::Div)->second != ValueRef{*s, 0} ||
        !r_.sole({*s, 0}))
      return std::nullopt;
    // y * g + b, each one value per element of a row.
    const int64_t row = p_.value(x).type.shape[rank - 1];
    auto per_row = [&](ValueRef w) {
      const PlannedValue &pv = p_.value(w);
      return pv.is_static && pv.type.shape.numel() == row &&
             (pv.type.shape.rank() == 0 ||
              pv.type.shape[pv.type.shape.rank() - 1] == row);
    };
    const auto scaled = r_.sole({y, 0});
    const auto gain =
        scaled ? other_than(g_.node(*scaled), B::Mul, {y, 0}) : std::nullopt;
    if (!gain || !per_row(*gain))
      return std::nullopt;
    const auto shifted = r_.sole({*scaled, 0});
    const auto shift = shifted
                           ? other_than(g_.node(*shifted), B::Add, {*scaled, 0})
                           : std::nullopt;
    std::vector<int32_t> nodes = {m, d, p, *v, *a, *s, y, *scaled};
    Node as;
    as.kind = OpKind::LayerNorm;
    as.attrs = make_attrs(OpKind::LayerNorm,
                          {{"axis", int64_t{-1}},
                           {"eps", static_cast<double>(*r_.scalar(*eps))}});
    as.inputs = {x, *gain};
    if (shift && per_row(*shift)) {
      nodes.push_back(*shifted);
      as.inputs.push_back(*shift);
    }
    std::sort(nodes.begin(), nodes.end());
    return composite(std::move(as), std::move(nodes));
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

  /// The pointwise composite fn(x) of `nodes`, when each keeps x's shape.
  std::optional<Composite> made(ops::PointwiseFn fn, ValueRef x,
                                std::vector<int32_t> nodes) const {
    for (int32_t id : nodes)
      if (p_.values[id].empty() ||
          p_.value({id, 0}).type.shape != p_.value(x).type.shape)
        return std::nullopt;
    Node as;
    as.kind = OpKind::Pointwise;
    as.attrs =
        make_attrs(OpKind::Pointwise, {{"fn", static_cast<int64_t>(fn)}});
    as.inputs = {x};
    return composite(std::move(as), std::move(nodes));
  }

  /// The composite of `nodes` computing `as` (of x, its first operand),
  /// when they are all computed per run, x too.
  std::optional<Composite> composite(Node as,
                                     std::vector<int32_t> nodes) const {
    const ValueRef x = as.inputs.at(0);
    if (p_.value(x).is_static)
      return std::nullopt;
    for (int32_t id : nodes)
      if (p_.values[id].empty() || p_.value({id, 0}).is_static)
        return std::nullopt;
    const Node &last = g_.node(nodes.back());
    as.name = last.name;
    as.types = last.types;
    Composite c{std::move(as), std::move(nodes), false};
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

std::optional<QuantizationGrid> quantization_grid(const Graph &g, const Plan &p,
                                                  ValueRef v) {
  using B = ops::BroadcastFn;
  // Each step back: `v` is node fn(x, k) for a scalar k, static or
  // computed; x and k.
  auto step = [&](ValueRef at,
                  B fn) -> std::optional<std::pair<ValueRef, ValueRef>> {
    if (p.value(at).is_static)
      return std::nullopt;
    const auto ops = binary(g.node(at.node), fn);
    if (!ops || p.value(ops->second).type.shape.numel() != 1)
      return std::nullopt;
    return ops;
  };
  auto number = [&](ValueRef k) { return static_scalar(p, k); };
  // Two scalars that are one: the same value, or equal static numbers.
  auto same = [&](ValueRef a, ValueRef b) {
    const auto x = number(a), y = number(b);
    return a == b || (x && y && *x == *y);
  };
  auto zero_or_absent = [&](const std::optional<ValueRef> &k) {
    return !k || number(*k) == std::optional<float>(0.0f);
  };
  // A reshape keeps every value: it is on the grid of what it reads.
  while (!p.value(v).is_static && g.node(v.node).kind == OpKind::Reshape)
    v = g.node(v.node).inputs.at(0);
  QuantizationGrid grid;
  ValueRef at = v;
  std::optional<ValueRef> scale, zero_out, zero_in;
  if (const auto scaled = step(at, B::Mul)) {
    scale = scaled->second;
    at = scaled->first;
  }
  if (const auto shifted = step(at, B::Sub)) {
    zero_out = shifted->second;
    at = shifted->first;
  }
  const auto below = step(at, B::Min);
  const auto above = below ? step(below->first, B::Max) : std::nullopt;
  if (!above)
    return std::nullopt;
  const auto hi = number(below->second), lo = number(above->second);
  at = above->first;
  if (const auto shifted = step(at, B::Add)) {
    zero_in = shifted->second;
    at = shifted->first;
  }
  if (p.value(at).is_static)
    return std::nullopt;
  const Node &round = g.node(at.node);
  if (round.kind != OpKind::Pointwise ||
      static_cast<ops::PointwiseFn>(round.attrs.i(ops::Pointwise::kFn)) !=
          ops::PointwiseFn::Round)
    return std::nullopt;
  const auto divided = step(round.inputs.at(0), B::Div);
  // The rounded integers, shifted and clamped to integer bounds, less the
  // zero point they were shifted by (or both absent, or 0), times the scale
  // they were divided by (a static one) where they are dequantized.
  if (!divided || !lo || !hi || *lo != std::nearbyint(*lo) ||
      *hi != std::nearbyint(*hi) || *lo > *hi)
    return std::nullopt;
  if (zero_in && zero_out
          ? !same(*zero_in, *zero_out)
          : !(zero_or_absent(zero_in) && zero_or_absent(zero_out)))
    return std::nullopt;
  grid.lo = *lo;
  grid.hi = *hi;
  if (scale) {
    const auto s = number(*scale);
    if (!s || !same(*scale, divided->second) || !(*s > 0))
      return std::nullopt;
    grid.scale = *s;
  }
  if (zero_in && zero_out) {
    if (const auto z = number(*zero_in)) {
      if (*z != std::nearbyint(*z))
        return std::nullopt;
      grid.zero = *z;
    } else {
      grid.computed_zero = *zero_in;
    }
  }
  return grid;
}

} // namespace quarry::runtime
