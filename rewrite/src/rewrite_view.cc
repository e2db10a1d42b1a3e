//===- rewrite_view.cc - A rewrite, seen before it is made ----------------===//
//
// The view instantiates the pattern's live nodes with their types, resolves
// what each replaced value becomes, refuses cycles, finds the host nodes
// that die and redirects the readers of the replaced values; everything
// else (keys, changed nodes, the graph) is read off that overlay.
//
//===----------------------------------------------------------------------===//
#include "quarry/rewrite/rewrite_view.h"

#include "linear_key.h"
#include "quarry/core/error.h"
#include "quarry/rewrite/constant_shape.h"
#include "view_scratch.h"

#include <algorithm>

namespace quarry::rewrite {

ViewScratch::ViewScratch() : d_(std::make_unique<Data>()) {}
ViewScratch::~ViewScratch() = default;
ViewScratch::ViewScratch(ViewScratch &&) noexcept = default;
ViewScratch &ViewScratch::operator=(ViewScratch &&) noexcept = default;

RewriteView::RewriteView(const RewriteHost &host, const Splice &s,
                         ViewScratch &scratch, const RefusalMemo &memo)
    : h_(host), g_(host.graph()), s_(s), d_(*scratch.d_), n_(g_.num_nodes()),
      pat_(*s.pattern) {
  d_.begin(n_);
  Verdict v = Verdict::Go;
  try {
    v = instantiate();
    if (v == Verdict::Go)
      v = resolve_targets();
  } catch (const Error &) {
    // A shape the pattern's operators do not accept: the rule's shape
    // conditions do not hold here.
    v = Verdict::Refused;
  }
  if (v == Verdict::Refused && memo.refused && memo.key)
    memo.refused->insert(memo.key);
  if (v == Verdict::Go)
    v = check_cycles();
  if (v != Verdict::Go)
    return; // Refused
  find_dead();
  if (!h_.keyed()) {
    outcome_ = Outcome::Unkeyed;
    return;
  }
  if (downstream_unchanged()) {
    key_ = linear_key() ^ variables_key();
  } else {
    const Verdict walked = walk_downstream();
    if (walked != Verdict::Go) {
      outcome_ =
          walked == Verdict::Refused ? Outcome::Refused : Outcome::Unkeyed;
      return;
    }
    key_ = walked_key() ^ variables_key();
  }
  outcome_ = Outcome::Made;
  collect_changed();
}

// --- The overlay ---------------------------------------------------------

bool RewriteView::dead(int32_t id) const { return d_.dead[id] == d_.epoch; }

bool RewriteView::in_graph(int32_t id) const {
  return is_new(id) ? d_.pat_live[id - n_] : h_.live_[id] && !dead(id);
}

const Node &RewriteView::node(int32_t id) const {
  if (is_new(id))
    return d_.made[id - n_];
  if (d_.mod_at[id] == d_.epoch)
    return d_.modified[d_.mod_slot[id]];
  return g_.node(id);
}

const TensorType *RewriteView::type(ValueRef v) const {
  if (!is_new(v.node) && d_.retyped_at[v.node] == d_.epoch)
    return &d_.retyped[v.node][v.output];
  const Node &n = is_new(v.node) ? d_.made[v.node - n_] : g_.node(v.node);
  return static_cast<size_t>(v.output) < n.types.size() ? &n.types[v.output]
                                                        : nullptr;
}

bool RewriteView::is_static(int32_t id) const {
  if (is_new(id))
    return d_.made_static[id - n_];
  return d_.down[id] == d_.epoch ? d_.down_static[id] : h_.fixed_[id];
}

bool RewriteView::is_step(int32_t id) const {
  return in_graph(id) && !is_static(id) && !node(id).is_variable();
}

bool RewriteView::reads_replacement(int32_t id) const {
  return !is_new(id) && d_.mod_at[id] == d_.epoch;
}

uint64_t RewriteView::hash_of(int32_t id) const {
  if (is_new(id))
    return d_.made_hash[id - n_];
  return d_.down[id] == d_.epoch ? d_.down_hash[id] : h_.key_[id];
}

ValueRef RewriteView::redirect(ValueRef v) const {
  for (size_t i = 0; i < s_.replaced.size(); ++i)
    if (s_.replaced[i] == v)
      return d_.targets[i];
  return v;
}

bool RewriteView::replaced(ValueRef v) const {
  return std::find(s_.replaced.begin(), s_.replaced.end(), v) !=
         s_.replaced.end();
}

ValueRef RewriteView::pattern_value(ValueRef v) const {
  const Node &n = pat_.node(v.node);
  if (n.is_variable())
    if (auto it = s_.bindings.find(n.name); it != s_.bindings.end())
      return it->second;
  return {n_ + v.node, v.output};
}

void RewriteView::readers_of(ValueRef v, void (*f)(void *, int32_t),
                             void *ctx) const {
  auto host_readers = [&](ValueRef hv) {
    if (is_new(hv.node))
      return;
    for (const RewriteHost::Reader &r : h_.readers(hv.node))
      if (r.output == hv.output && !dead(r.reader))
        f(ctx, r.reader);
  };
  if (!is_new(v.node) && !replaced(v))
    host_readers(v);
  for (size_t i = 0; i < s_.replaced.size(); ++i)
    if (d_.targets[i] == v)
      host_readers(s_.replaced[i]);
  for (size_t p = 0; p < d_.made.size(); ++p)
    if (d_.pat_live[p])
      for (ValueRef in : d_.made[p].inputs)
        if (in == v)
          f(ctx, n_ + static_cast<int32_t>(p));
}

bool RewriteView::is_output(ValueRef v) const {
  for (ValueRef o : g_.outputs())
    if (redirect(o) == v)
      return true;
  return false;
}

std::span<const int32_t> RewriteView::changed_nodes() const {
  return d_.changed;
}

// --- Instantiating the pattern --------------------------------------------

/// The pattern's live nodes, typed as Graph::add() types them. An operand
/// bound to a replaced value reads what replaces it, made first. A constant
/// without a shape takes it from the first of its readers made whose other
/// operands tell it (constant_shape.h).
RewriteView::Verdict RewriteView::instantiate() {
  const int32_t np = pat_.num_nodes();
  std::vector<bool> &live = d_.pat_live;
  live.assign(np, false);
  for (ValueRef o : pat_.outputs())
    live[o.node] = true;
  for (int32_t i = np - 1; i >= 0; --i)
    if (live[i])
      for (ValueRef v : pat_.node(i).inputs)
        live[v.node] = true;
  d_.made.resize(np);
  d_.made_static.assign(np, false);
  d_.made_hash.assign(np, 0);
  d_.pat_mark.assign(np, 0);
  for (int32_t i = 0; i < np; ++i) {
    const Node &n = pat_.node(i);
    if (!live[i])
      continue;
    if (n.is_variable() && s_.bindings.count(n.name)) {
      live[i] = false; // a variable bound to a host value: no node
      continue;
    }
    if (op_info(n.kind).traits.constant && n.types.empty())
      continue; // typed by its reader
    if (const Verdict v = ensure(i); v != Verdict::Go)
      return v;
  }
  for (int32_t i = 0; i < np; ++i)
    if (live[i] && d_.pat_mark[i] != 2)
      return Verdict::Refused; // a shapeless constant nothing types
  return Verdict::Go;
}

/// Pattern node `i` made (a shapeless constant only by its reader).
RewriteView::Verdict RewriteView::ensure(int32_t i) {
  if (d_.pat_mark[i] == 2)
    return Verdict::Go;
  if (d_.pat_mark[i] == 1)
    return Verdict::Tangled; // the pattern reads its own replacement
  const Node &n = pat_.node(i);
  if (n.is_variable())
    return make_variable(i);
  if (op_info(n.kind).traits.constant && n.types.empty())
    return Verdict::Refused; // no reader to tell its shape
  return make(i, n.attrs);
}

/// What `v` is in the rewritten graph: where it is a replaced host value,
/// what replaces it (and so on). Refused for values replacing each other.
RewriteView::Verdict RewriteView::resolve(ValueRef &v) const {
  const size_t r = s_.replaced.size();
  for (size_t hops = 0; !is_new(v.node) && replaced(v); ++hops) {
    if (hops == r)
      return Verdict::Tangled;
    const size_t j = std::find(s_.replaced.begin(), s_.replaced.end(), v) -
                     s_.replaced.begin();
    v = pattern_value(pat_.outputs().at(j));
  }
  return Verdict::Go;
}

/// A pattern operand's value in the rewritten graph, made if it is the
/// pattern's.
RewriteView::Verdict RewriteView::operand(ValueRef pattern_operand,
                                          ValueRef &out) {
  out = pattern_value(pattern_operand);
  if (const Verdict v = resolve(out); v != Verdict::Go)
    return v;
  return is_new(out.node) ? ensure(out.node - n_) : Verdict::Go;
}

RewriteView::Verdict RewriteView::make_variable(int32_t i) {
  const Node &n = pat_.node(i);
  const auto shape = s_.new_variables.find(n.name);
  if (shape == s_.new_variables.end() || g_.find_variable(n.name) >= 0)
    return Verdict::Tangled;
  Graph one;
  const ValueRef v = n.kind == OpKind::Weight
                         ? one.weight(n.name, shape->second)
                         : one.input(n.name, shape->second);
  d_.made[i] = one.node(v.node);
  d_.made_static[i] = n.kind == OpKind::Weight;
  if (h_.keyed())
    d_.made_hash[i] = key::node_key(node_hash_seed(d_.made[i]), {},
                                    [](int32_t) { return uint64_t{0}; });
  d_.pat_mark[i] = 2;
  return Verdict::Go;
}

/// `attrs` are the node's own, or a shapeless constant's with its shape.
RewriteView::Verdict RewriteView::make(int32_t i, const Attrs &attrs) {
  const Node &n = pat_.node(i);
  d_.pat_mark[i] = 1;
  // Operands other than shapeless constants first, then each such
  // constant from its reader's other operands.
  const auto deferred = [&](size_t k) {
    const Node &op = pat_.node(n.inputs[k].node);
    return op_info(op.kind).traits.constant && op.types.empty() &&
           d_.pat_mark[n.inputs[k].node] != 2;
  };
  std::vector<ValueRef> in(n.inputs.size());
  std::vector<const TensorType *> types(n.inputs.size(), nullptr);
  for (size_t k = 0; k < n.inputs.size(); ++k) {
    if (deferred(k))
      continue;
    if (const Verdict v = operand(n.inputs[k], in[k]); v != Verdict::Go)
      return v;
    types[k] = type(in[k]);
  }
  for (size_t k = 0; k < n.inputs.size(); ++k) {
    if (in[k].node >= 0)
      continue;
    const int32_t c = n.inputs[k].node;
    const Node &cn = pat_.node(c);
    const std::optional<Shape> cs =
        constant_shape(cn.kind, cn.attrs, n.kind, static_cast<int>(k), types);
    if (!cs)
      return Verdict::Refused;
    Attrs ca = cn.attrs;
    ca.set(find_attr(op_info(cn.kind).attrs, "shape"), cs->dims);
    if (const Verdict v = make(c, ca); v != Verdict::Go)
      return v;
    in[k] = {n_ + c, n.inputs[k].output};
    types[k] = type(in[k]);
  }
  Node &m = d_.made[i];
  m.kind = n.kind;
  m.attrs = attrs;
  m.name.clear();
  m.num_outputs = op_num_outputs(n.kind, m.attrs);
  m.inputs = std::move(in);
  m.types.clear();
  // Reused from view to view: assigning a type keeps its buffers.
  std::vector<TensorType> &known = d_.operand_types;
  size_t count = 0;
  bool all_known = true;
  bool all_static = !op_info(n.kind).traits.uninterpreted;
  for (size_t k = 0; k < m.inputs.size(); ++k) {
    all_static = all_static && is_static(m.inputs[k].node);
    if (types[k]) {
      if (count == known.size())
        known.emplace_back();
      known[count++] = *types[k];
    } else {
      all_known = false;
    }
  }
  if (all_known)
    if (auto t = infer_types(m.kind, m.attrs,
                             std::span<const TensorType>(known.data(), count)))
      m.types = std::move(*t);
  if (h_.keyed())
    d_.made_hash[i] = key::node_key(node_hash_seed(m), m.inputs,
                                    [&](int32_t id) { return hash_of(id); });
  d_.made_static[i] = all_static;
  d_.pat_mark[i] = 2;
  return Verdict::Go;
}

/// What each replaced value becomes: its pattern output, or where that is
/// a host value replaced in turn, what that one becomes.
RewriteView::Verdict RewriteView::resolve_targets() {
  for (size_t i = 0; i < s_.replaced.size(); ++i) {
    ValueRef t = pattern_value(pat_.outputs().at(i));
    if (const Verdict v = resolve(t); v != Verdict::Go)
      return v;
    d_.targets.push_back(t);
    const TensorType *was = g_.type(s_.replaced[i]);
    const TensorType *now = type(t);
    if (!was || !now || was->shape != now->shape)
      return Verdict::Refused;
    // Other concat boundaries change no shape downstream, key or cost,
    // except where a split without sizes cuts at them (walk_downstream).
    for (int a = 0; a < was->rank(); ++a)
      boundaries_moved_ =
          boundaries_moved_ || !same_splits(was->split(a), now->split(a));
  }
  return Verdict::Go;
}

/// Refused when the rewritten graph would have a cycle: a value the
/// pattern reads depends on a value it replaces, whose replacement depends
/// on the pattern's node. Depth-first over the overlay from the pattern's
/// nodes and the replacements; host nodes at or before the first replaced
/// value cannot reach one and are not entered.
RewriteView::Verdict RewriteView::check_cycles() {
  int32_t first = n_;
  for (ValueRef r : s_.replaced)
    first = std::min(first, r.node);
  std::vector<uint8_t> &colour = d_.pat_colour; // 1 on the stack, 2 done
  colour.assign(d_.made.size(), 0);
  std::vector<int32_t> &visited = d_.visited; // host nodes entered
  visited.clear();
  auto &walk = d_.walk;
  const auto state = [&](int32_t id) -> int {
    if (is_new(id))
      return colour[id - n_];
    return d_.active[id] == d_.epoch ? 1 : d_.in_set[id] == d_.epoch ? 2 : 0;
  };
  const auto set_state = [&](int32_t id, int s) {
    if (is_new(id)) {
      colour[id - n_] = static_cast<uint8_t>(s);
      return;
    }
    if (s == 1) {
      d_.active[id] = d_.epoch;
      visited.push_back(id);
    } else {
      d_.active[id] = 0;
      d_.in_set[id] = d_.epoch;
    }
  };
  bool cycle = false;
  const auto enter = [&](int32_t id) {
    if ((!is_new(id) && id <= first) || cycle)
      return;
    const int s = state(id);
    if (s == 1)
      cycle = true;
    if (s != 0)
      return;
    set_state(id, 1);
    walk.emplace_back(id, 0);
  };
  std::vector<int32_t> roots;
  for (size_t p = 0; p < d_.made.size(); ++p)
    if (d_.pat_live[p])
      roots.push_back(n_ + static_cast<int32_t>(p));
  for (ValueRef t : d_.targets)
    roots.push_back(t.node);
  for (int32_t root : roots) {
    walk.clear();
    enter(root);
    while (!walk.empty() && !cycle) {
      auto &[id, next] = walk.back();
      const Node &n = is_new(id) ? d_.made[id - n_] : g_.node(id);
      if (next == static_cast<int32_t>(n.inputs.size())) {
        set_state(id, 2);
        walk.pop_back();
        continue;
      }
      const ValueRef v = is_new(id) ? n.inputs[next] : redirect(n.inputs[next]);
      ++next;
      enter(v.node);
    }
    if (cycle)
      break;
  }
  // The marks are cleared for in_set's later use.
  for (int32_t id : visited)
    d_.in_set[id] = d_.active[id] = 0;
  return cycle ? Verdict::Refused : Verdict::Go;
}

// --- What dies, and who reads the replacements ----------------------------

int32_t RewriteView::uses(int32_t id) const {
  return h_.uses_[id] + (d_.uses_at[id] == d_.epoch ? d_.uses_delta[id] : 0);
}

void RewriteView::add_uses(int32_t id, int32_t k) {
  if (d_.uses_at[id] != d_.epoch) {
    d_.uses_at[id] = d_.epoch;
    d_.uses_delta[id] = 0;
  }
  d_.uses_delta[id] += k;
}

/// Host nodes the rewritten graph no longer reaches, and the host nodes
/// that read a replaced value, seen reading its replacement.
void RewriteView::find_dead() {
  for (size_t p = 0; p < d_.made.size(); ++p)
    if (d_.pat_live[p])
      for (ValueRef v : d_.made[p].inputs)
        if (!is_new(v.node))
          add_uses(v.node, 1);
  std::vector<int32_t> check;
  for (size_t i = 0; i < s_.replaced.size(); ++i) {
    const ValueRef r = s_.replaced[i];
    int32_t k = 0;
    for (const RewriteHost::Reader &rd : h_.readers(r.node))
      k += rd.output == r.output;
    for (ValueRef o : g_.outputs())
      k += o == r;
    add_uses(r.node, -k);
    if (!is_new(d_.targets[i].node))
      add_uses(d_.targets[i].node, k);
    check.push_back(r.node);
  }
  while (!check.empty()) {
    const int32_t id = check.back();
    check.pop_back();
    if (dead(id) || uses(id) > 0 || g_.node(id).kind == OpKind::Input)
      continue;
    d_.dead[id] = d_.epoch;
    d_.dying.push_back(id);
    for (ValueRef v : g_.node(id).inputs)
      if (!replaced(v)) {
        add_uses(v.node, -1);
        check.push_back(v.node);
      }
  }
  for (size_t i = 0; i < s_.replaced.size(); ++i) {
    const ValueRef r = s_.replaced[i];
    for (const RewriteHost::Reader &rd : h_.readers(r.node)) {
      if (rd.output != r.output || dead(rd.reader))
        continue;
      if (d_.mod_at[rd.reader] != d_.epoch) {
        d_.mod_at[rd.reader] = d_.epoch;
        d_.mod_slot[rd.reader] = static_cast<int32_t>(d_.modified.size());
        d_.modified.push_back(g_.node(rd.reader));
        d_.redirected.push_back(rd.reader);
      }
      d_.modified[d_.mod_slot[rd.reader]].inputs[rd.slot] = d_.targets[i];
    }
  }
}

} // namespace quarry::rewrite
