//===- graph.cc - Graph construction, hashing and equality ----------------===//
#include "quarry/core/graph.h"

#include "quarry/core/hash.h"

#include <bit>
#include <unordered_map>

namespace quarry {

Attrs make_attrs(
    OpKind kind,
    std::initializer_list<std::pair<std::string_view, AttrValue>> overrides) {
  const OpInfo &info = op_info(kind);
  Attrs a = Attrs::defaults(info.attrs);
  for (const auto &[name, value] : overrides) {
    int idx = find_attr(info.attrs, name);
    if (idx < 0)
      throw Error(std::string(info.name) + ": unknown attribute '" +
                  std::string(name) + "'");
    check_attr(info.name, info.attrs[idx], value);
    a.set(idx, value);
  }
  return a;
}

ValueRef Graph::input(const std::string &name,
                      const std::optional<Shape> &shape) {
  return add_variable(OpKind::Input, name, shape);
}

ValueRef Graph::weight(const std::string &name,
                       const std::optional<Shape> &shape) {
  return add_variable(OpKind::Weight, name, shape);
}

ValueRef Graph::add_variable(OpKind kind, const std::string &name,
                             const std::optional<Shape> &shape) {
  if (name.empty())
    throw Error(std::string(op_name(kind)) + ": a variable needs a name");
  if (find_variable(name) >= 0)
    throw Error(std::string(op_name(kind)) + ": '" + name +
                "' is already defined");
  Attrs attrs = make_attrs(kind);
  if (shape) {
    for (int64_t d : shape->dims)
      if (d < 1)
        throw Error(std::string(op_name(kind)) + " '" + name +
                    "': dimensions must be positive, got " + shape->str());
    attrs.set(ops::Input::kShape, shape->dims);
  }
  return add(kind, std::move(attrs), {}, name)[0];
}

void Graph::check_ref(ValueRef v, const char *what) const {
  if (v.node < 0 || v.node >= num_nodes() || v.output < 0 ||
      v.output >= nodes_[v.node].num_outputs)
    throw Error(std::string(what) + ": no value " + std::to_string(v.node) +
                ":" + std::to_string(v.output) + " in the graph");
}

std::vector<ValueRef> Graph::add(OpKind kind, Attrs attrs,
                                 std::vector<ValueRef> inputs,
                                 std::string name) {
  const OpInfo &info = op_info(kind);
  const int n = static_cast<int>(inputs.size());
  if (n < info.min_inputs ||
      (info.max_inputs != ops::kVariadic && n > info.max_inputs)) {
    std::string want = std::to_string(info.min_inputs);
    if (info.max_inputs == ops::kVariadic)
      want = "at least " + want;
    else if (info.max_inputs != info.min_inputs)
      want += " to " + std::to_string(info.max_inputs);
    throw Error(std::string(info.name) + ": expects " + want +
                " operands, got " + std::to_string(n));
  }
  if (attrs.size() != info.attrs.size())
    throw Error(std::string(info.name) + ": expects " +
                std::to_string(info.attrs.size()) + " attributes, got " +
                std::to_string(attrs.size()));
  for (size_t i = 0; i < attrs.size(); ++i)
    check_attr(info.name, info.attrs[i], attrs.value(i));
  for (ValueRef v : inputs)
    check_ref(v, std::string(info.name).c_str());

  Node node;
  node.kind = kind;
  node.attrs = std::move(attrs);
  node.inputs = std::move(inputs);
  node.name = std::move(name);
  node.num_outputs = op_num_outputs(kind, node.attrs);

  std::vector<TensorType> in_types;
  bool known = true;
  for (ValueRef v : node.inputs) {
    const TensorType *t = type(v);
    if (!t) {
      known = false;
      break;
    }
    in_types.push_back(*t);
  }
  if (known)
    if (auto t = infer_types(kind, node.attrs, in_types))
      node.types = std::move(*t);

  const int32_t id = num_nodes();
  if (info.traits.variable)
    variables_.emplace(node.name, id);
  nodes_.push_back(std::move(node));
  std::vector<ValueRef> outs;
  for (int i = 0; i < nodes_.back().num_outputs; ++i)
    outs.push_back({id, i});
  return outs;
}

ValueRef Graph::add1(OpKind kind, Attrs attrs, std::vector<ValueRef> inputs,
                     std::string name) {
  if (op_num_outputs(kind, attrs) != 1)
    throw Error(std::string(op_name(kind)) + ": has " +
                std::to_string(op_num_outputs(kind, attrs)) +
                " outputs; bind them all");
  return add(kind, std::move(attrs), std::move(inputs), std::move(name))[0];
}

void Graph::set_name(int32_t id, std::string name) {
  Node &n = nodes_.at(id);
  if (n.is_variable())
    throw Error("set_name: variables keep the name they were declared with");
  n.name = std::move(name);
}

void Graph::mark_output(ValueRef v) {
  check_ref(v, "output");
  outputs_.push_back(v);
}

void Graph::truncate(int num_nodes) {
  if (num_nodes < 0 || num_nodes > this->num_nodes())
    throw Error("truncate: " + std::to_string(num_nodes) +
                " is not a node count of this graph");
  for (ValueRef v : outputs_)
    if (v.node >= num_nodes)
      throw Error("truncate: node " + std::to_string(v.node) +
                  " is a graph output");
  for (int32_t id = num_nodes; id < this->num_nodes(); ++id)
    if (nodes_[id].is_variable())
      variables_.erase(nodes_[id].name);
  nodes_.resize(num_nodes);
}

const TensorType *Graph::type(ValueRef v) const {
  const Node &n = nodes_.at(v.node);
  return n.types.empty() ? nullptr : &n.types[v.output];
}

int32_t Graph::find_variable(std::string_view name) const {
  auto it = variables_.find(name);
  return it == variables_.end() ? -1 : it->second;
}

std::vector<int> Graph::use_counts() const {
  std::vector<int> uses(nodes_.size(), 0);
  for (const Node &n : nodes_)
    for (ValueRef v : n.inputs)
      ++uses[v.node];
  for (ValueRef v : outputs_)
    ++uses[v.node];
  return uses;
}

std::vector<bool> Graph::live_nodes() const {
  std::vector<bool> live(nodes_.size(), false);
  for (ValueRef v : outputs_)
    live[v.node] = true;
  for (int32_t i = num_nodes() - 1; i >= 0; --i)
    if (live[i])
      for (ValueRef v : nodes_[i].inputs)
        live[v.node] = true;
  return live;
}

std::vector<bool> Graph::static_nodes() const {
  std::vector<bool> is_static(nodes_.size(), false);
  for (int32_t id = 0; id < num_nodes(); ++id) {
    const Node &n = nodes_[id];
    if (n.is_variable()) {
      is_static[id] = n.kind == OpKind::Weight;
      continue;
    }
    // An uninterpreted operator is never computed ahead: nothing can.
    bool all = !op_info(n.kind).traits.uninterpreted;
    for (ValueRef v : n.inputs)
      all = all && is_static[v.node];
    is_static[id] = all;
  }
  return is_static;
}

int Graph::num_operators() const {
  int n = 0;
  for (const Node &node : nodes_)
    n += !node.is_variable();
  return n;
}

namespace {

/// Merkle hash of each node: its operator, attributes, and operands' hashes;
/// variables hash by kind, name and attributes (the shape).
std::vector<uint64_t> node_hashes(const Graph &g) {
  std::vector<uint64_t> h(g.num_nodes());
  for (int32_t i = 0; i < g.num_nodes(); ++i) {
    const Node &n = g.node(i);
    uint64_t x = node_hash_seed(n);
    for (ValueRef v : n.inputs)
      x = hash_operand(x, h[v.node], v.output);
    h[i] = x;
  }
  return h;
}
} // namespace

uint64_t node_hash_seed(const Node &n) {
  uint64_t x = mix64(static_cast<uint64_t>(n.kind) + 1);
  if (n.is_variable())
    x = hash_combine(x, hash_bytes(n.name));
  for (size_t a = 0; a < n.attrs.size(); ++a)
    x = hash_combine(x, hash_attr(n.attrs.value(a)));
  return x;
}

uint64_t hash_operand(uint64_t h, uint64_t operand_node_hash, int32_t output) {
  return hash_combine(
      h, hash_combine(operand_node_hash, static_cast<uint64_t>(output)));
}

uint64_t graph_hash_seed(size_t num_outputs) { return mix64(num_outputs); }

uint64_t variable_hash(uint64_t variable_node_hash) {
  return mix64(variable_node_hash);
}

uint64_t Graph::hash() const {
  const auto h = node_hashes(*this);
  uint64_t x = graph_hash_seed(outputs_.size());
  for (ValueRef v : outputs_)
    x = hash_operand(x, h[v.node], v.output);
  // Variables that no output uses still belong to the graph's interface;
  // XOR keeps their contribution independent of declaration order.
  for (int32_t i = 0; i < num_nodes(); ++i)
    if (nodes_[i].is_variable())
      x ^= variable_hash(h[i]);
  return x;
}

namespace {
/// Matches nodes of a and b recursively, keeping the matching a bijection.
struct Matcher {
  const Graph &a, &b;
  std::unordered_map<int32_t, int32_t> ab, ba;

  bool match(int32_t x, int32_t y) {
    if (auto it = ab.find(x); it != ab.end())
      return it->second == y;
    if (ba.count(y))
      return false;
    const Node &nx = a.node(x), &ny = b.node(y);
    if (nx.kind != ny.kind || !(nx.attrs == ny.attrs) ||
        nx.inputs.size() != ny.inputs.size() ||
        (nx.is_variable() && nx.name != ny.name))
      return false;
    for (size_t i = 0; i < nx.inputs.size(); ++i)
      if (nx.inputs[i].output != ny.inputs[i].output ||
          !match(nx.inputs[i].node, ny.inputs[i].node))
        return false;
    ab[x] = y;
    ba[y] = x;
    return true;
  }
};

std::vector<int32_t> variables(const Graph &g) {
  std::vector<int32_t> v;
  for (int32_t i = 0; i < g.num_nodes(); ++i)
    if (g.node(i).is_variable())
      v.push_back(i);
  return v;
}
} // namespace

ValueRef add_variable_like(Graph &g, const Node &n) {
  const std::optional<Shape> shape =
      n.types.empty() ? std::nullopt : std::optional(n.types[0].shape);
  return n.kind == OpKind::Weight ? g.weight(n.name, shape)
                                  : g.input(n.name, shape);
}

Graph with_attrs(const Graph &g,
                 const std::function<Attrs(const Node &)> &attrs_of) {
  Graph out;
  for (const Node &n : g.nodes()) {
    if (n.is_variable())
      add_variable_like(out, n);
    else
      out.add(n.kind, attrs_of(n), n.inputs, n.name);
  }
  for (ValueRef v : g.outputs())
    out.mark_output(v);
  return out;
}

bool structurally_equal(const Graph &a, const Graph &b) {
  if (a.outputs().size() != b.outputs().size())
    return false;
  const auto va = variables(a), vb = variables(b);
  if (va.size() != vb.size())
    return false;
  Matcher m{a, b, {}, {}};
  for (int32_t x : va) {
    int32_t y = b.find_variable(a.node(x).name);
    if (y < 0 || !m.match(x, y))
      return false;
  }
  for (size_t i = 0; i < a.outputs().size(); ++i) {
    ValueRef x = a.outputs()[i], y = b.outputs()[i];
    if (x.output != y.output || !m.match(x.node, y.node))
      return false;
  }
  return true;
}

} // namespace quarry
