//===- op_config.cc - Operator configurations and their keys --------------===//
#include "quarry/runtime/op_config.h"

#include "quarry/core/hash.h"
#include "quarry/runtime/plan.h"

namespace quarry::runtime {

std::string OpConfig::key() const {
  const OpInfo &info = op_info(kind);
  std::string s(info.name), attrs_text;
  for (size_t i = 0; i < info.attrs.size(); ++i) {
    if (!attrs.has(i))
      continue;
    attrs_text += attrs_text.empty() ? "" : " ";
    attrs_text += std::string(info.attrs[i].name) + "=" +
                  format_attr(info.attrs[i], attrs.value(i));
  }
  if (!attrs_text.empty())
    s += "[" + attrs_text + "]";
  s += "(";
  for (size_t i = 0; i < inputs.size(); ++i)
    s += (i ? "," : "") + std::string(weights[i] ? "w" : "x") + inputs[i].str();
  return s + ")";
}

bool names_implementation(const OpConfig &c) {
  return c.kind == OpKind::Conv2D && (c.attrs.has(ops::Conv2D::kAlgorithm) ||
                                      c.attrs.has(ops::Conv2D::kLayout));
}

OpConfig op_config(const Graph &g, int32_t id) {
  return op_config(g, id, g.static_nodes());
}

OpConfig op_config(const Graph &g, int32_t id,
                   const std::vector<bool> &is_static) {
  const Node &n = g.node(id);
  OpConfig c{n.kind, n.attrs, {}, {}};
  for (ValueRef v : n.inputs) {
    const TensorType *t = g.type(v);
    if (!t)
      throw Error("cost: " + describe_node(g, id) +
                  " has an operand of unknown shape");
    c.inputs.push_back(t->shape);
    c.weights.push_back(is_static[v.node]);
  }
  return c;
}

uint64_t config_hash(const Node &n,
                     const std::vector<const TensorType *> &operand_types,
                     const std::vector<bool> &operand_static) {
  uint64_t h = mix64(static_cast<uint64_t>(n.kind) + 1);
  for (size_t a = 0; a < n.attrs.size(); ++a)
    h = hash_combine(h, hash_attr(n.attrs.value(a)));
  auto shape = [&h](const TensorType *t) {
    if (!t) {
      h = hash_combine(h, ~uint64_t{0});
      return;
    }
    h = hash_combine(h, static_cast<uint64_t>(t->shape.rank()));
    for (int64_t d : t->shape.dims)
      h = hash_combine(h, static_cast<uint64_t>(d));
  };
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    shape(operand_types[i]);
    h = hash_combine(h, operand_static[i] ? 1 : 2);
  }
  for (const TensorType &t : n.types)
    shape(&t);
  return h;
}

uint64_t config_hash(const Graph &g, int32_t id,
                     const std::vector<bool> &is_static) {
  const Node &n = g.node(id);
  std::vector<const TensorType *> types;
  std::vector<bool> fixed;
  for (ValueRef v : n.inputs) {
    types.push_back(g.type(v));
    fixed.push_back(is_static[v.node]);
  }
  return config_hash(n, types, fixed);
}

Graph single_op_graph(const OpConfig &c) {
  Graph g;
  std::vector<ValueRef> operands;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const std::string name = "in" + std::to_string(i);
    operands.push_back(c.weights[i] ? g.weight(name, c.inputs[i])
                                    : g.input(name, c.inputs[i]));
  }
  for (ValueRef v : g.add(c.kind, c.attrs, operands))
    g.mark_output(v);
  return g;
}

} // namespace quarry::runtime
