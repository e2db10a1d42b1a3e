//===- rewrite_host.cc - A graph indexed for viewing rewrites -------------===//
#include "quarry/rewrite/rewrite_host.h"

#include "linear_key.h"

namespace quarry::rewrite {

namespace {

uint64_t hash_splits(const SplitRef &t) {
  if (!t)
    return 0x51;
  return hash_combine(
      hash_combine(static_cast<uint64_t>(t->left), hash_splits(t->lhs)),
      hash_splits(t->rhs));
}

uint64_t hash_type(const TensorType &t) {
  uint64_t h = static_cast<uint64_t>(t.rank());
  for (int a = 0; a < t.rank(); ++a)
    h = hash_combine(hash_combine(h, static_cast<uint64_t>(t.shape[a])),
                     hash_splits(t.split(a)));
  return h;
}

} // namespace

RewriteHost::RewriteHost(const Graph &g, Index what)
    : g_(&g), keyed_(what == Index::Search) {
  const int32_t n = g.num_nodes();
  const std::vector<bool> live = g.live_nodes();
  const std::vector<bool> fixed = g.static_nodes();
  live_.assign(live.begin(), live.end());
  fixed_.assign(fixed.begin(), fixed.end());
  step_.resize(n);
  uses_.assign(n, 0);
  std::vector<int32_t> count(n + 1, 0);
  for (int32_t i = 0; i < n; ++i) {
    const Node &node = g.node(i);
    step_[i] = live_[i] && !fixed_[i] && !node.is_variable();
    if (!live_[i])
      continue;
    for (ValueRef v : node.inputs) {
      ++uses_[v.node];
      ++count[v.node + 1];
    }
  }
  for (ValueRef v : g.outputs())
    ++uses_[v.node];
  for (int32_t i = 0; i < n; ++i)
    count[i + 1] += count[i];
  reader_begin_ = count;
  readers_.resize(count[n]);
  if (keyed_) {
    seed_.resize(n);
    key_.resize(n);
    for (int32_t i = 0; i < n; ++i) {
      seed_[i] = node_hash_seed(g.node(i));
      key_[i] = key::node_key(seed_[i], g.node(i).inputs,
                              [&](int32_t id) { return key_[id]; });
    }
  }
  for (int32_t i = 0; i < n; ++i) {
    if (!live_[i])
      continue;
    const Node &node = g.node(i);
    for (size_t s = 0; s < node.inputs.size(); ++s) {
      const ValueRef v = node.inputs[s];
      readers_[count[v.node]++] = {i, static_cast<int32_t>(s), v.output,
                                   keyed_ ? key::operand_coef(seed_[i], s) : 0};
    }
  }
  if (!keyed_)
    return;

  for (int32_t i = 0; i < n; ++i) {
    const Node &node = g.node(i);
    if (node.kind == OpKind::Input)
      inputs_xor_ ^= variable_hash(key_[i]);
    else if (node.is_variable() && live_[i])
      live_weights_xor_ ^= variable_hash(key_[i]);
  }
  if (n <= kMaxAncestryNodes) {
    words_ = (n + 63) / 64;
    ancestry_.assign(static_cast<size_t>(n) * words_, 0);
    for (int32_t i = 0; i < n; ++i) {
      uint64_t *mine = &ancestry_[static_cast<size_t>(i) * words_];
      mine[i / 64] |= uint64_t{1} << (i % 64);
      for (ValueRef v : g.node(i).inputs) {
        const uint64_t *theirs =
            &ancestry_[static_cast<size_t>(v.node) * words_];
        // An operand comes first: no ancestor of it lies past its word.
        for (int32_t w = 0; w <= v.node / 64; ++w)
          mine[w] |= theirs[w];
      }
    }
  }
  type_begin_.assign(n + 1, 0);
  for (int32_t i = 0; i < n; ++i)
    type_begin_[i + 1] =
        type_begin_[i] + static_cast<int32_t>(g.node(i).types.size());
  type_hash_.reserve(type_begin_[n]);
  for (int32_t i = 0; i < n; ++i)
    for (const TensorType &t : g.node(i).types)
      type_hash_.push_back(hash_type(t));
  // How the key of the graph moves with each node's: the sum, over every
  // path from the node to an output, of the coefficients on the way.
  sensitivity_.assign(n, 0);
  for (size_t j = 0; j < g.outputs().size(); ++j)
    sensitivity_[g.outputs()[j].node] =
        field61::add(sensitivity_[g.outputs()[j].node], key::output_coef(j));
  linear_ = key::outputs_key(g.outputs().size(), [&](size_t j) {
    return key::value_key(key_[g.outputs()[j].node], g.outputs()[j].output);
  });
  for (int32_t i = n - 1; i >= 0; --i)
    for (const Reader &r : readers(i))
      sensitivity_[i] = field61::add(
          sensitivity_[i], field61::mul(sensitivity_[r.reader], r.coef));
}

uint64_t RewriteHost::type_hash(ValueRef v) const {
  const int32_t at = type_begin_[v.node] + v.output;
  return at < type_begin_[v.node + 1] ? type_hash_[at] : ~uint64_t{0};
}

} // namespace quarry::rewrite
