//===- rewrite_preview.cc - A rewrite's hash and cost, not made -----------===//
//
// The rewritten graph is read through an overlay of the host: host ids stay,
// the pattern's nodes take ids from host.num_nodes() on, the host nodes that
// read a replaced value are copied with that operand redirected, and the
// nodes the rewrite leaves without a reader die. Per-node state lives in
// arrays sized to the host and stamped per preview, so a preview costs what
// it touches (and one pass over the ids downstream of the rewrite).
//
//===----------------------------------------------------------------------===//
#include "quarry/optimizer/rewrite_preview.h"

#include "quarry/core/error.h"
#include "quarry/core/hash.h"
#include "quarry/rewrite/constant_shape.h"
#include "quarry/runtime/op_config.h"
#include "quarry/runtime/plan.h"

#include <tbb/concurrent_unordered_set.h>

#include <algorithm>
#include <atomic>

namespace quarry::opt {

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

// The search key (search_key()) is linear in the keys of a graph's nodes,
// so that a rewrite's preview can tell the new key from what changes where
// the replaced values were read, without rekeying everything downstream.
// It is computed modulo the prime 2^61 - 1: modulo 2^64 a sum over the
// many paths of a deep graph gathers factors of two until it is 0, and
// every rewrite near the inputs would leave the key as it was.
constexpr uint64_t kPrime = (uint64_t{1} << 61) - 1;

uint64_t reduce61(uint64_t x) {
  x = (x & kPrime) + (x >> 61);
  return x >= kPrime ? x - kPrime : x;
}
uint64_t add61(uint64_t a, uint64_t b) { return reduce61(a + b); }
uint64_t sub61(uint64_t a, uint64_t b) { return add61(a, kPrime - b); }
uint64_t mul61(uint64_t a, uint64_t b) {
  const unsigned __int128 p = static_cast<unsigned __int128>(a) * b;
  return add61(static_cast<uint64_t>(p) & kPrime,
               static_cast<uint64_t>(p >> 61));
}
/// A nonzero coefficient from 64 mixed bits.
uint64_t coef61(uint64_t bits) {
  const uint64_t c = reduce61(bits);
  return c == 0 ? 1 : c;
}

uint64_t operand_coef(uint64_t seed, size_t slot) {
  return coef61(mix64(seed + 0x9e3779b97f4a7c15ULL * (slot + 1)));
}
uint64_t output_coef(size_t j) {
  return coef61(mix64(0x6f75747075747321ULL + j));
}
uint64_t value_key(uint64_t node_key, int32_t output) {
  return add61(node_key, reduce61(mix64(0x76616c7565ULL +
                                        static_cast<uint64_t>(output))));
}
/// A node's key from its node_hash_seed() and its operands, whose nodes'
/// keys `key_of` gives.
template <class KeyOf>
uint64_t node_key(uint64_t seed, const std::vector<ValueRef> &inputs,
                  KeyOf key_of) {
  uint64_t key = reduce61(seed);
  for (size_t k = 0; k < inputs.size(); ++k)
    key =
        add61(key, mul61(operand_coef(seed, k),
                         value_key(key_of(inputs[k].node), inputs[k].output)));
  return key;
}

/// A graph's key before its variables are XORed in, from its outputs,
/// whose value keys `value_key_of(j)` gives.
template <class ValueKeyOf>
uint64_t outputs_key(size_t outputs, ValueKeyOf value_key_of) {
  uint64_t key = reduce61(graph_hash_seed(outputs));
  for (size_t j = 0; j < outputs; ++j)
    key = add61(key, mul61(output_coef(j), value_key_of(j)));
  return key;
}

} // namespace

uint64_t search_key(const Graph &g) {
  std::vector<uint64_t> key(g.num_nodes());
  const auto key_of = [&](int32_t id) { return key[id]; };
  uint64_t variables = 0;
  for (int32_t i = 0; i < g.num_nodes(); ++i) {
    const Node &n = g.node(i);
    key[i] = node_key(node_hash_seed(n), n.inputs, key_of);
    if (n.is_variable())
      variables ^= variable_hash(key[i]);
  }
  return outputs_key(g.outputs().size(),
                     [&](size_t j) {
                       return value_key(key[g.outputs()[j].node],
                                        g.outputs()[j].output);
                     }) ^
         variables;
}

HostIndex::HostIndex(const Graph &g, const CostModel &cost)
    : g_(&g), cost_(&cost), policy_(cost.fusion_policy()) {
  const int32_t n = g.num_nodes();
  seed_.resize(n);
  key_.resize(n);
  for (int32_t i = 0; i < n; ++i) {
    seed_[i] = node_hash_seed(g.node(i));
    key_[i] = node_key(seed_[i], g.node(i).inputs,
                       [&](int32_t id) { return key_[id]; });
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
    if (node.is_variable()) {
      if (node.kind == OpKind::Input)
        inputs_xor_ ^= variable_hash(key_[i]);
      else if (live_[i])
        live_weights_xor_ ^= variable_hash(key_[i]);
    }
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
  for (int32_t i = 0; i < n; ++i) {
    if (!live_[i])
      continue;
    const Node &node = g.node(i);
    for (size_t s = 0; s < node.inputs.size(); ++s) {
      const ValueRef v = node.inputs[s];
      readers_[count[v.node]++] = {i, static_cast<int32_t>(s), v.output,
                                   operand_coef(seed_[i], s)};
    }
  }
  // How the key of the graph moves with each node's: the sum, over every
  // path from the node to an output, of the coefficients on the way.
  sensitivity_.assign(n, 0);
  for (size_t j = 0; j < g.outputs().size(); ++j)
    sensitivity_[g.outputs()[j].node] =
        add61(sensitivity_[g.outputs()[j].node], output_coef(j));
  linear_ = outputs_key(g.outputs().size(), [&](size_t j) {
    return value_key(key_[g.outputs()[j].node], g.outputs()[j].output);
  });
  for (int32_t i = n - 1; i >= 0; --i)
    for (int32_t k = reader_begin_[i]; k < reader_begin_[i + 1]; ++k)
      sensitivity_[i] =
          add61(sensitivity_[i],
                mul61(sensitivity_[readers_[k].reader], readers_[k].coef));
  config_.assign(n, 0);
  for (int32_t i = 0; i < n; ++i)
    if (live_[i] && !g.node(i).is_variable())
      config_[i] = runtime::config_hash(g, i, fixed);
  contrib_.assign(n, 0);
  const CostModel::RunningNodes running = cost.running_nodes(g);
  for (size_t k = 0; k < running.nodes.size(); ++k) {
    const int64_t t = cost.known_ticks(running.hashes[k]);
    if (t < 0 || ticks_ < 0) {
      ticks_ = -1;
      continue;
    }
    contrib_[running.nodes[k]] = t;
    ticks_ += t;
  }
}

struct RefusedShapes::Set {
  tbb::concurrent_unordered_set<uint64_t> keys;
  std::atomic<size_t> count{0};
};

RefusedShapes::RefusedShapes() : set_(std::make_unique<Set>()) {}
RefusedShapes::~RefusedShapes() = default;

bool RefusedShapes::contains(uint64_t key) const {
  return set_->keys.count(key) > 0;
}

void RefusedShapes::insert(uint64_t key) {
  if (set_->keys.insert(key).second)
    set_->count.fetch_add(1, std::memory_order_relaxed);
}

size_t RefusedShapes::bytes() const {
  // A node of the set's lists and a bucket, about.
  return set_->count.load(std::memory_order_relaxed) * 48;
}

class Previewer;

struct PreviewScratch::Data {
  /// Stamps: an entry is set for this preview when it equals `epoch`.
  uint32_t epoch = 0;
  std::vector<uint32_t> dead, down, in_set, mod_at, uses_at, retyped_at;
  std::vector<int32_t> uses_delta, mod_slot;
  /// Downstream host nodes' types where a concat boundary they carry
  /// moved (walk_downstream()); only read where retyped_at is set.
  std::vector<std::vector<TensorType>> retyped;
  std::vector<uint64_t> down_hash;
  std::vector<uint8_t> down_static;
  std::vector<Node> modified;
  std::vector<int32_t> set, stack, visited;
  std::vector<bool> pat_live, made_static;
  std::vector<Node> made;
  std::vector<uint64_t> made_hash;
  std::vector<ValueRef> targets;
  std::vector<int32_t> dying, redirected, static_changed, fused_new, anchors,
      seen;
  std::vector<const TensorType *> types;
  std::vector<bool> fixed;
  std::vector<TensorType> operand_types;

  void begin(int32_t n) {
    if (static_cast<int32_t>(dead.size()) < n) {
      for (auto *v : {&dead, &down, &in_set, &mod_at, &uses_at, &retyped_at})
        v->assign(n, 0);
      retyped.assign(n, {});
      uses_delta.assign(n, 0);
      mod_slot.assign(n, 0);
      down_hash.assign(n, 0);
      down_static.assign(n, 0);
      epoch = 0;
    }
    if (++epoch == 0) { // wrapped: clear every stamp
      for (auto *v : {&dead, &down, &in_set, &mod_at, &uses_at, &retyped_at})
        std::fill(v->begin(), v->end(), 0);
      epoch = 1;
    }
    modified.clear();
    set.clear();
    targets.clear();
    dying.clear();
    redirected.clear();
    static_changed.clear();
    fused_new.clear();
    anchors.clear();
  }
};

PreviewScratch::PreviewScratch() : d_(std::make_unique<Data>()) {}
PreviewScratch::~PreviewScratch() = default;
PreviewScratch::PreviewScratch(PreviewScratch &&) noexcept = default;
PreviewScratch &PreviewScratch::operator=(PreviewScratch &&) noexcept = default;

namespace {
/// How far a preview got: on, or splice() refuses the rewrite, or the
/// preview cannot tell what splice() makes of it.
enum class Verdict { Go, Refused, CannotTell };
} // namespace

/// One preview: the overlay, and the FusionViews of host and overlay.
class Previewer {
public:
  Previewer(const HostIndex &h, const rewrite::Splice &s,
            PreviewScratch::Data &d, const PreviewMemo &memo)
      : h_(h), g_(*h.g_), s_(s), d_(d), n_(g_.num_nodes()), pat_(*s.pattern),
        refused_(memo.refusal_key ? memo.refused : nullptr),
        shapes_key_(memo.refusal_key), seen_(memo.seen) {
    d_.begin(n_);
  }

  Preview run() {
    Preview p;
    Verdict v = Verdict::Go;
    try {
      v = instantiate();
      if (v == Verdict::Go)
        v = check_replacements();
    } catch (const Error &) {
      // A shape the target's operators do not accept, as splice() says.
      v = Verdict::Refused;
    }
    if (v == Verdict::Refused)
      remember_refusal();
    if (v == Verdict::Go)
      v = check_cycles();
    if (v == Verdict::Refused) {
      p.outcome = Preview::Outcome::Refused;
      return p;
    }
    if (v == Verdict::CannotTell) {
      p.outcome = Preview::Outcome::Unknown;
      return p;
    }
    find_dead();
    if (downstream_unchanged()) {
      p.hash = linear_key() ^ variables_key();
    } else {
      const Verdict walked = walk_downstream();
      if (walked != Verdict::Go) {
        p.outcome = walked == Verdict::Refused ? Preview::Outcome::Refused
                                               : Preview::Outcome::Unknown;
        return p;
      }
      p.hash = walked_key() ^ variables_key();
    }
    p.outcome = Preview::Outcome::Made;
    if (seen_ && seen_->count(p.hash)) {
      p.seen = true;
      return p;
    }
    const int64_t t = ticks();
    if (t >= 0)
      p.cost = CostModel::ms_of(t);
    return p;
  }

private:
  /// The pattern's types are refused given the bound and replaced types.
  void remember_refusal() {
    if (refused_)
      refused_->insert(shapes_key_);
  }

  // --- The overlay -------------------------------------------------------
  bool is_new(int32_t id) const { return id >= n_; }
  const Node &new_node(int32_t id) const { return made_[id - n_]; }
  bool dead(int32_t id) const { return d_.dead[id] == d_.epoch; }
  bool in_new_graph(int32_t id) const {
    return is_new(id) ? pat_live_[id - n_] : h_.live_[id] && !dead(id);
  }
  const Node &node(int32_t id) const {
    if (is_new(id))
      return new_node(id);
    if (d_.mod_at[id] == d_.epoch)
      return d_.modified[d_.mod_slot[id]];
    return g_.node(id);
  }
  const TensorType *type(ValueRef v) const {
    if (!is_new(v.node) && d_.retyped_at[v.node] == d_.epoch)
      return &d_.retyped[v.node][v.output];
    const Node &n = is_new(v.node) ? new_node(v.node) : g_.node(v.node);
    return static_cast<size_t>(v.output) < n.types.size() ? &n.types[v.output]
                                                          : nullptr;
  }
  bool is_static(int32_t id) const {
    if (is_new(id))
      return made_static_[id - n_];
    return d_.down[id] == d_.epoch ? d_.down_static[id] : h_.fixed_[id];
  }
  bool is_step(int32_t id) const {
    return in_new_graph(id) && !is_static(id) && !node(id).is_variable();
  }
  uint64_t hash_of(int32_t id) const {
    if (is_new(id))
      return made_hash_[id - n_];
    return d_.down[id] == d_.epoch ? d_.down_hash[id] : h_.key_[id];
  }
  /// The value a host value becomes (a replaced one: its replacement).
  ValueRef redirect(ValueRef v) const {
    for (size_t i = 0; i < s_.replaced.size(); ++i)
      if (s_.replaced[i] == v)
        return targets_[i];
    return v;
  }
  bool replaced(ValueRef v) const {
    return std::find(s_.replaced.begin(), s_.replaced.end(), v) !=
           s_.replaced.end();
  }
  /// The overlay value of a pattern value.
  ValueRef pattern_value(ValueRef v) const {
    const Node &n = pat_.node(v.node);
    if (n.is_variable())
      return s_.bindings.find(n.name)->second;
    return {n_ + v.node, v.output};
  }

  // --- Readers in the rewritten graph -----------------------------------
  /// Calls f(reader) for each operand reading `v` in the rewritten graph.
  template <typename F> void for_each_reader(ValueRef v, F f) const {
    auto host_readers = [&](ValueRef hv) {
      if (is_new(hv.node))
        return;
      for (int32_t k = h_.reader_begin_[hv.node];
           k < h_.reader_begin_[hv.node + 1]; ++k) {
        const auto &r = h_.readers_[k];
        if (r.output == hv.output && !dead(r.reader))
          f(r.reader);
      }
    };
    if (!is_new(v.node) && !replaced(v))
      host_readers(v);
    for (size_t i = 0; i < s_.replaced.size(); ++i)
      if (targets_[i] == v)
        host_readers(s_.replaced[i]);
    for (size_t p = 0; p < made_.size(); ++p)
      if (pat_live_[p])
        for (ValueRef in : made_[p].inputs)
          if (in == v)
            f(n_ + static_cast<int32_t>(p));
  }
  bool is_output(ValueRef v) const {
    for (ValueRef o : g_.outputs())
      if (redirect(o) == v)
        return true;
    return false;
  }

  class NewView final : public runtime::FusionView {
  public:
    explicit NewView(const Previewer &p) : p_(p) {}
    const Node &node(int32_t id) const override { return p_.node(id); }
    const Shape &shape(ValueRef v) const override { return p_.type(v)->shape; }
    bool is_static(ValueRef v) const override { return p_.is_static(v.node); }
    bool is_step(int32_t id) const override { return p_.is_step(id); }
    int32_t sole_reader(ValueRef v) const override {
      if (p_.is_output(v))
        return -1;
      int count = 0;
      int32_t one = -1;
      p_.for_each_reader(v, [&](int32_t r) {
        if (p_.is_step(r)) {
          ++count;
          one = r;
        }
      });
      return count == 1 ? one : -1;
    }

  private:
    const Previewer &p_;
  };

  class HostView final : public runtime::FusionView {
  public:
    explicit HostView(const HostIndex &h) : h_(h) {}
    const Node &node(int32_t id) const override { return h_.g_->node(id); }
    const Shape &shape(ValueRef v) const override {
      return h_.g_->type(v)->shape;
    }
    bool is_static(ValueRef v) const override { return h_.fixed_[v.node]; }
    bool is_step(int32_t id) const override { return h_.step_[id]; }
    int32_t sole_reader(ValueRef v) const override {
      for (ValueRef o : h_.g_->outputs())
        if (o == v)
          return -1;
      int count = 0;
      int32_t one = -1;
      for (int32_t k = h_.reader_begin_[v.node];
           k < h_.reader_begin_[v.node + 1]; ++k) {
        const auto &r = h_.readers_[k];
        if (r.output == v.output && h_.step_[r.reader]) {
          ++count;
          one = r.reader;
        }
      }
      return count == 1 ? one : -1;
    }

  private:
    const HostIndex &h_;
  };

  // --- Steps -------------------------------------------------------------
  /// The pattern's live nodes, typed as splice() would type them.
  Verdict instantiate() {
    const int32_t np = pat_.num_nodes();
    pat_live_.assign(np, false);
    for (ValueRef o : pat_.outputs())
      pat_live_[o.node] = true;
    for (int32_t i = np - 1; i >= 0; --i)
      if (pat_live_[i])
        for (ValueRef v : pat_.node(i).inputs)
          pat_live_[v.node] = true;
    made_.resize(np);
    made_static_.assign(np, false);
    made_hash_.assign(np, 0);
    std::vector<bool> done(np, false);
    for (int32_t i = 0; i < np; ++i) {
      const Node &n = pat_.node(i);
      if (!pat_live_[i])
        continue;
      if (n.is_variable()) {
        pat_live_[i] = false; // a variable is a host value, not a node
        if (!s_.bindings.count(n.name))
          return Verdict::CannotTell; // a new variable: rewrite::splice() knows
                                      // its shape
        continue;
      }
      const auto &traits = op_info(n.kind).traits;
      if (traits.constant && n.types.empty())
        continue; // typed by its reader, below
      if (const Verdict v = make(i, n.attrs, done); v != Verdict::Go)
        return v;
    }
    for (int32_t i = 0; i < np; ++i)
      if (pat_live_[i] && !done[i])
        return Verdict::CannotTell; // a shapeless constant that is an output
    return Verdict::Go;
  }

  /// `attrs` are the node's own, or a shapeless constant's with its shape.
  Verdict make(int32_t i, const Attrs &attrs, std::vector<bool> &done) {
    const Node &n = pat_.node(i);
    // Operands other than shapeless constants first (splice's order), then
    // each such constant from its reader's other operands.
    const auto deferred = [&](size_t k) {
      const Node &op = pat_.node(n.inputs[k].node);
      return op_info(op.kind).traits.constant && op.types.empty() &&
             !done[n.inputs[k].node];
    };
    std::vector<const TensorType *> types(n.inputs.size(), nullptr);
    for (size_t k = 0; k < n.inputs.size(); ++k)
      if (!deferred(k))
        types[k] = type(pattern_value(n.inputs[k]));
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      if (types[k] || !deferred(k))
        continue;
      const int32_t c = n.inputs[k].node;
      int readers = 0;
      for (int32_t j = 0; j < pat_.num_nodes(); ++j)
        if (pat_live_[j])
          for (ValueRef v : pat_.node(j).inputs)
            readers += v.node == c;
      if (readers != 1)
        return Verdict::CannotTell; // which reader types: the walk's order
      const Node &cn = pat_.node(c);
      const std::optional<Shape> cs =
          rewrite::constant_shape(cn.kind, cn.attrs, n.kind, k, types);
      if (!cs)
        return Verdict::Refused;
      Attrs ca = cn.attrs;
      ca.set(find_attr(op_info(cn.kind).attrs, "shape"), cs->dims);
      if (const Verdict v = make(c, ca, done); v != Verdict::Go)
        return v;
      types[k] = type(pattern_value(n.inputs[k]));
    }
    Node &m = made_[i];
    m.kind = n.kind;
    m.attrs = attrs;
    m.num_outputs = op_num_outputs(n.kind, m.attrs);
    m.inputs.clear();
    m.types.clear();
    // Reused from preview to preview: assigning a type keeps its buffers.
    std::vector<TensorType> &in = d_.operand_types;
    size_t count = 0;
    bool known = true;
    bool all_static = !op_info(n.kind).traits.uninterpreted;
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      const ValueRef v = pattern_value(n.inputs[k]);
      m.inputs.push_back(v);
      all_static = all_static && is_static(v.node);
      if (const TensorType *t = type(v)) {
        if (count == in.size())
          in.emplace_back();
        in[count++] = *t;
      } else {
        known = false;
      }
    }
    if (known)
      if (auto t = infer_types(m.kind, m.attrs,
                               std::span<const TensorType>(in.data(), count)))
        m.types = std::move(*t);
    made_hash_[i] = node_key(node_hash_seed(m), m.inputs,
                             [&](int32_t id) { return hash_of(id); });
    made_static_[i] = all_static;
    done[i] = true;
    return Verdict::Go;
  }

  Verdict check_replacements() {
    for (size_t i = 0; i < s_.replaced.size(); ++i) {
      const ValueRef t = pattern_value(pat_.outputs().at(i));
      if (!is_new(t.node) && replaced(t))
        return Verdict::CannotTell;
      targets_.push_back(t);
      const TensorType *was = g_.type(s_.replaced[i]);
      const TensorType *now = type(t);
      if (!was || !now || was->shape != now->shape)
        return Verdict::Refused;
      // Other concat boundaries change no shape downstream, hash or cost,
      // except where a split without sizes cuts at them (walk_downstream).
      for (int a = 0; a < was->rank(); ++a)
        boundaries_moved_ =
            boundaries_moved_ || !same_splits(was->split(a), now->split(a));
    }
    return Verdict::Go;
  }

  /// splice() refuses when a value the pattern reads depends on a value it
  /// replaces: the rewritten graph would have a cycle.
  Verdict check_cycles() {
    int32_t first = n_;
    for (ValueRef r : s_.replaced)
      first = std::min(first, r.node);
    std::vector<int32_t> &stack = d_.stack;
    stack.clear();
    for (size_t p = 0; p < made_.size(); ++p)
      if (pat_live_[p])
        for (ValueRef v : made_[p].inputs)
          if (!is_new(v.node)) {
            if (replaced(v))
              return Verdict::Refused;
            stack.push_back(v.node);
          }
    for (ValueRef t : targets_)
      if (!is_new(t.node))
        stack.push_back(t.node);
    // `in_set` marks the visit; the marks are cleared for its later use.
    std::vector<int32_t> &visited = d_.visited;
    visited.clear();
    bool cycle = false;
    while (!stack.empty() && !cycle) {
      const int32_t id = stack.back();
      stack.pop_back();
      if (id <= first || d_.in_set[id] == d_.epoch)
        continue;
      d_.in_set[id] = d_.epoch;
      visited.push_back(id);
      for (ValueRef v : g_.node(id).inputs) {
        cycle = cycle || replaced(v);
        stack.push_back(v.node);
      }
    }
    for (int32_t id : visited)
      d_.in_set[id] = 0;
    return cycle ? Verdict::Refused : Verdict::Go;
  }

  int32_t uses(int32_t id) const {
    return h_.uses_[id] + (d_.uses_at[id] == d_.epoch ? d_.uses_delta[id] : 0);
  }
  void add_uses(int32_t id, int32_t k) {
    if (d_.uses_at[id] != d_.epoch) {
      d_.uses_at[id] = d_.epoch;
      d_.uses_delta[id] = 0;
    }
    d_.uses_delta[id] += k;
  }

  /// Host nodes the rewritten graph no longer reaches.
  void find_dead() {
    for (size_t p = 0; p < made_.size(); ++p)
      if (pat_live_[p])
        for (ValueRef v : made_[p].inputs)
          if (!is_new(v.node))
            add_uses(v.node, 1);
    std::vector<int32_t> check;
    for (size_t i = 0; i < s_.replaced.size(); ++i) {
      const ValueRef r = s_.replaced[i];
      int32_t k = 0;
      for (int32_t j = h_.reader_begin_[r.node];
           j < h_.reader_begin_[r.node + 1]; ++j)
        k += h_.readers_[j].output == r.output;
      for (ValueRef o : g_.outputs())
        k += o == r;
      add_uses(r.node, -k);
      if (!is_new(targets_[i].node))
        add_uses(targets_[i].node, k);
      check.push_back(r.node);
    }
    while (!check.empty()) {
      const int32_t id = check.back();
      check.pop_back();
      if (dead(id) || uses(id) > 0 || g_.node(id).kind == OpKind::Input)
        continue;
      d_.dead[id] = d_.epoch;
      dying_.push_back(id);
      for (ValueRef v : g_.node(id).inputs)
        if (!replaced(v)) {
          add_uses(v.node, -1);
          check.push_back(v.node);
        }
    }
    // The host nodes reading a replaced value read its replacement.
    for (size_t i = 0; i < s_.replaced.size(); ++i) {
      const ValueRef r = s_.replaced[i];
      for (int32_t j = h_.reader_begin_[r.node];
           j < h_.reader_begin_[r.node + 1]; ++j) {
        const auto &rd = h_.readers_[j];
        if (rd.output != r.output || dead(rd.reader))
          continue;
        if (d_.mod_at[rd.reader] != d_.epoch) {
          d_.mod_at[rd.reader] = d_.epoch;
          d_.mod_slot[rd.reader] = static_cast<int32_t>(d_.modified.size());
          d_.modified.push_back(g_.node(rd.reader));
          redirected_.push_back(rd.reader);
        }
        d_.modified[d_.mod_slot[rd.reader]].inputs[rd.slot] = targets_[i];
      }
    }
  }

  /// New hashes and static flags of the host nodes downstream of the
  /// replaced values, in id order (ids are topological).
  Verdict walk_downstream() {
    int32_t from = n_;
    for (int32_t id : redirected_) {
      d_.down[id] = d_.epoch;
      from = std::min(from, id);
    }
    for (int32_t id = from; id < n_; ++id) {
      if (d_.down[id] != d_.epoch || dead(id))
        continue;
      const Node &n = node(id);
      if (boundaries_moved_)
        if (const Verdict v = retype(id, n); v != Verdict::Go)
          return v;
      bool all_static = !op_info(n.kind).traits.uninterpreted;
      for (ValueRef v : n.inputs)
        all_static = all_static && is_static(v.node);
      d_.down_hash[id] = node_key(h_.seed_[id], n.inputs,
                                  [&](int32_t in) { return hash_of(in); });
      d_.down_static[id] = all_static;
      if (static_cast<bool>(all_static) != static_cast<bool>(h_.fixed_[id]))
        static_changed_.push_back(id);
      for (int32_t k = h_.reader_begin_[id]; k < h_.reader_begin_[id + 1]; ++k)
        d_.down[h_.readers_[k].reader] = d_.epoch;
    }
    return Verdict::Go;
  }

  /// Where a replaced value carries other concat boundaries than before,
  /// the types downstream carry them on, and a split without sizes cuts at
  /// them: infers the types of downstream node `id` (`n`, its operands
  /// redirected) when an operand's type is not the host's. Refused where
  /// the types do not infer (splice() refuses there too); CannotTell where
  /// a shape changes (every cost downstream would), which leaves the graph
  /// to be made.
  Verdict retype(int32_t id, const Node &n) {
    // A redirected reader reads a replacement, whose type is not the
    // replaced value's (a host value as replacement is not new).
    bool changed = d_.mod_at[id] == d_.epoch;
    for (ValueRef v : n.inputs)
      changed = changed || is_new(v.node) || d_.retyped_at[v.node] == d_.epoch;
    if (!changed)
      return Verdict::Go;
    std::vector<TensorType> &in = d_.operand_types;
    size_t count = 0;
    for (ValueRef v : n.inputs) {
      const TensorType *t = type(v);
      if (!t)
        return Verdict::CannotTell;
      if (count == in.size())
        in.emplace_back();
      in[count++] = *t;
    }
    std::optional<std::vector<TensorType>> now;
    try {
      now = infer_types(n.kind, n.attrs,
                        std::span<const TensorType>(in.data(), count));
    } catch (const Error &) {
      return Verdict::Refused;
    }
    const std::vector<TensorType> &was = g_.node(id).types;
    if (!now || now->size() != was.size())
      return Verdict::CannotTell;
    bool moved = false;
    for (size_t k = 0; k < was.size(); ++k) {
      if ((*now)[k].shape != was[k].shape)
        return Verdict::CannotTell;
      for (int a = 0; a < was[k].rank(); ++a)
        moved = moved || !same_splits(was[k].split(a), (*now)[k].split(a));
    }
    if (moved) {
      d_.retyped[id] = std::move(*now);
      d_.retyped_at[id] = d_.epoch;
    }
    return Verdict::Go;
  }

  /// Whether no host node downstream of the replaced values changes but
  /// in its key: static flags stay, as do the concat boundaries a split
  /// may cut at, and every path from a node reading a replaced value to
  /// an output stays (no node on it dies or has a value replaced). Then
  /// the graph's key moves only by what the replaced values' readers now
  /// read (linear_key()).
  bool downstream_unchanged() const {
    if (!h_.has_ancestry() || boundaries_moved_)
      return false;
    for (size_t i = 0; i < s_.replaced.size(); ++i) {
      const ValueRef r = s_.replaced[i];
      if (is_static(targets_[i].node) != static_cast<bool>(h_.fixed_[r.node]))
        return false;
      for (int32_t k = h_.reader_begin_[r.node];
           k < h_.reader_begin_[r.node + 1]; ++k) {
        const auto &rd = h_.readers_[k];
        if (rd.output != r.output || dead(rd.reader))
          continue;
        for (int32_t d : dying_)
          if (h_.descends_from(d, rd.reader))
            return false;
        // A replaced value computed from the reader: the reader's paths
        // to the outputs through it are cut.
        for (ValueRef other : s_.replaced)
          if (h_.descends_from(other.node, rd.reader))
            return false;
      }
    }
    return true;
  }

  /// The graph's key from the host's, when downstream_unchanged().
  uint64_t linear_key() const {
    uint64_t x = h_.linear_;
    for (size_t i = 0; i < s_.replaced.size(); ++i) {
      const ValueRef r = s_.replaced[i], t = targets_[i];
      uint64_t weight = 0;
      for (int32_t k = h_.reader_begin_[r.node];
           k < h_.reader_begin_[r.node + 1]; ++k) {
        const auto &rd = h_.readers_[k];
        if (rd.output == r.output && !dead(rd.reader))
          weight = add61(weight, mul61(h_.sensitivity_[rd.reader], rd.coef));
      }
      for (size_t j = 0; j < g_.outputs().size(); ++j)
        if (g_.outputs()[j] == r)
          weight = add61(weight, output_coef(j));
      x = add61(x, mul61(weight, sub61(value_key(hash_of(t.node), t.output),
                                       value_key(h_.key_[r.node], r.output))));
    }
    return x;
  }

  /// The graph's key, from its outputs' keys after walk_downstream().
  uint64_t walked_key() const {
    return outputs_key(g_.outputs().size(), [&](size_t j) {
      const ValueRef v = redirect(g_.outputs()[j]);
      return value_key(hash_of(v.node), v.output);
    });
  }

  /// What the rewritten graph's variables add to its key.
  uint64_t variables_key() {
    uint64_t x = h_.inputs_xor_ ^ h_.live_weights_xor_;
    for (int32_t id : dying_)
      if (g_.node(id).kind == OpKind::Weight)
        x ^= variable_hash(h_.key_[id]);
    // A weight no host output used that the rewritten graph reads.
    std::vector<int32_t> &woken = d_.seen;
    woken.clear();
    const auto wake = [&](ValueRef v) {
      if (!is_new(v.node) && !h_.live_[v.node] &&
          g_.node(v.node).kind == OpKind::Weight &&
          std::find(woken.begin(), woken.end(), v.node) == woken.end()) {
        woken.push_back(v.node);
        x ^= variable_hash(h_.key_[v.node]);
      }
    };
    for (size_t p = 0; p < made_.size(); ++p)
      if (pat_live_[p])
        for (ValueRef v : made_[p].inputs)
          wake(v);
    for (ValueRef t : targets_)
      wake(t);
    return x;
  }

  // --- Cost --------------------------------------------------------------
  void add_to_set(int32_t id) {
    if (is_new(id)) {
      if (std::find(d_.set.begin(), d_.set.end(), id) == d_.set.end())
        d_.set.push_back(id);
      return;
    }
    if (d_.in_set[id] != d_.epoch) {
      d_.in_set[id] = d_.epoch;
      d_.set.push_back(id);
    }
  }
  /// A node and every node reading it, in the host and the rewritten graph.
  void add_with_readers(int32_t id) {
    add_to_set(id);
    if (!is_new(id))
      for (int32_t k = h_.reader_begin_[id]; k < h_.reader_begin_[id + 1]; ++k)
        add_to_set(h_.readers_[k].reader);
    const int outs = node(id).num_outputs;
    for (int o = 0; o < outs; ++o)
      for_each_reader({id, o}, [&](int32_t r) { add_to_set(r); });
  }

  /// Anchors whose chains may pass through `id` in `view`.
  void anchors_of(const runtime::FusionView &view, int32_t id,
                  std::vector<int32_t> &out) {
    std::vector<int32_t> &stack = d_.stack, &seen = d_.seen;
    stack.assign(1, id);
    seen.clear();
    while (!stack.empty()) {
      const int32_t at = stack.back();
      stack.pop_back();
      if (std::find(seen.begin(), seen.end(), at) != seen.end() ||
          !view.is_step(at))
        continue;
      seen.push_back(at);
      const Node &n = view.node(at);
      if (h_.policy_->is_anchor(n)) {
        out.push_back(at);
      } else if (runtime::may_join_chain(n)) {
        for (ValueRef v : n.inputs)
          if (!view.is_static(v))
            stack.push_back(v.node);
      }
    }
  }

  /// A node's configuration in the rewritten graph: the host's for a host
  /// node reading the same host nodes, none of whose static flags changed
  /// (configurations see shapes and flags, not values).
  uint64_t config_of(int32_t id, const Node &n) {
    // A host node reading a replacement reads another node: its flag.
    bool same = !is_new(id) && d_.mod_at[id] != d_.epoch && h_.config_[id] != 0;
    for (size_t k = 0; same && k < n.inputs.size(); ++k) {
      const int32_t in = n.inputs[k].node;
      same = !is_new(in) && is_static(in) == h_.fixed_[in];
    }
    if (same)
      return h_.config_[id];
    std::vector<const TensorType *> &types = d_.types;
    std::vector<bool> &fixed = d_.fixed;
    types.clear();
    fixed.clear();
    for (ValueRef v : n.inputs) {
      types.push_back(type(v));
      fixed.push_back(is_static(v.node));
    }
    return runtime::config_hash(n, types, fixed);
  }

  /// The rewritten graph's cost in ticks; -1 when a running configuration
  /// has no cost yet.
  int64_t ticks() {
    if (h_.ticks_ < 0)
      return -1;
    // Which nodes may run differently: the seeds, then the fusion chains
    // through them.
    for (size_t p = 0; p < made_.size(); ++p)
      if (pat_live_[p])
        add_with_readers(n_ + static_cast<int32_t>(p));
    for (int32_t id : dying_) {
      add_to_set(id);
      for (ValueRef v : g_.node(id).inputs)
        add_with_readers(v.node);
    }
    for (int32_t id : redirected_)
      add_to_set(id);
    for (ValueRef r : s_.replaced)
      add_with_readers(r.node);
    for (ValueRef t : targets_)
      add_with_readers(t.node);
    for (size_t p = 0; p < made_.size(); ++p)
      if (pat_live_[p])
        for (ValueRef v : made_[p].inputs)
          add_with_readers(v.node);
    for (int32_t id : static_changed_) {
      add_with_readers(id);
      for (ValueRef v : node(id).inputs)
        add_with_readers(v.node);
    }
    std::vector<int32_t> &fused_new = d_.fused_new;
    if (h_.policy_ && h_.policy_->enabled) {
      const HostView old_view(h_);
      const NewView new_view(*this);
      std::vector<int32_t> &anchors = d_.anchors;
      const size_t seeds = d_.set.size();
      for (size_t k = 0; k < seeds; ++k) {
        const int32_t id = d_.set[k];
        if (!is_new(id) && h_.live_[id])
          anchors_of(old_view, id, anchors);
        if (in_new_graph(id))
          anchors_of(new_view, id, anchors);
      }
      std::sort(anchors.begin(), anchors.end());
      anchors.erase(std::unique(anchors.begin(), anchors.end()), anchors.end());
      for (int32_t a : anchors) {
        if (!is_new(a) && h_.step_[a])
          for (const auto &op : runtime::fused_chain(old_view, a, *h_.policy_))
            add_to_set(op.node);
        if (is_step(a))
          for (const auto &op :
               runtime::fused_chain(new_view, a, *h_.policy_)) {
            add_to_set(op.node);
            if (op.node != a)
              fused_new.push_back(op.node);
          }
      }
    }
    int64_t total = h_.ticks_;
    for (int32_t id : d_.set) {
      if (!is_new(id))
        total -= h_.contrib_[id];
      const Node &n = node(id);
      if (!is_step(id) || op_info(n.kind).traits.uninterpreted ||
          std::find(fused_new.begin(), fused_new.end(), id) != fused_new.end())
        continue;
      const int64_t t = h_.cost_->known_ticks(config_of(id, n));
      if (t < 0)
        return -1;
      total += t;
    }
    return total;
  }

  const HostIndex &h_;
  const Graph &g_;
  const rewrite::Splice &s_;
  PreviewScratch::Data &d_;
  const int32_t n_;
  const Graph &pat_;
  RefusedShapes *refused_;
  uint64_t shapes_key_ = 0;
  const std::unordered_set<uint64_t> *seen_;
  /// A replacement records other concat boundaries than the value it
  /// replaces.
  bool boundaries_moved_ = false;
  // The preview's own state, in the scratch's memory (reused, not freed).
  std::vector<bool> &pat_live_ = d_.pat_live, &made_static_ = d_.made_static;
  std::vector<Node> &made_ = d_.made;
  std::vector<uint64_t> &made_hash_ = d_.made_hash;
  std::vector<ValueRef> &targets_ = d_.targets;
  std::vector<int32_t> &dying_ = d_.dying, &redirected_ = d_.redirected,
                       &static_changed_ = d_.static_changed;
};

Preview preview(const HostIndex &host, const rewrite::Splice &s,
                PreviewScratch &scratch, const PreviewMemo &memo) {
  return Previewer(host, s, *scratch.d_, memo).run();
}

uint64_t HostIndex::type_hash(ValueRef v) const {
  const int32_t at = type_begin_[v.node] + v.output;
  return at < type_begin_[v.node + 1] ? type_hash_[at] : ~uint64_t{0};
}

uint64_t refusal_key(uint64_t pattern_key, const HostIndex &host,
                     const rewrite::MatchSite &site) {
  uint64_t key = hash_combine(0x7265667573, pattern_key);
  for (int32_t id = 0; id < site.pattern->num_nodes(); ++id)
    if (site.pattern->node(id).is_variable())
      key = hash_combine(key, site.values[id].node >= 0
                                  ? host.type_hash(site.values[id])
                                  : ~uint64_t{0});
  for (ValueRef r : site.outputs)
    key = hash_combine(key, host.type_hash(r));
  return key;
}

} // namespace quarry::opt
