//===- graph_proto.cc - Graphs to and from protobuf messages --------------===//
#include "quarry/rulepack/graph_proto.h"

#include "quarry/core/error.h"

#include <optional>

namespace quarry {

void graph_to_proto(const Graph &g, pb::Graph *out) {
  out->Clear();
  for (const Node &n : g.nodes()) {
    pb::Node *m = out->add_nodes();
    const OpInfo &info = op_info(n.kind);
    m->set_op(std::string(info.name));
    m->set_name(n.name);
    for (size_t a = 0; a < n.attrs.size(); ++a) {
      if (!n.attrs.has(a))
        continue;
      pb::Attr *attr = m->add_attrs();
      attr->set_name(std::string(info.attrs[a].name));
      const AttrValue &v = n.attrs.value(a);
      if (auto *i = std::get_if<int64_t>(&v))
        attr->set_int_value(*i);
      else if (auto *l = std::get_if<std::vector<int64_t>>(&v))
        attr->mutable_int_list()->mutable_values()->Add(l->begin(), l->end());
      else
        attr->set_real_value(std::get<double>(v));
    }
    for (ValueRef v : n.inputs) {
      pb::ValueRef *r = m->add_inputs();
      r->set_node(v.node);
      r->set_output(v.output);
    }
  }
  for (ValueRef v : g.outputs()) {
    pb::ValueRef *r = out->add_outputs();
    r->set_node(v.node);
    r->set_output(v.output);
  }
}

namespace {

AttrValue attr_value(const pb::Attr &a) {
  switch (a.value_case()) {
  case pb::Attr::kIntValue:
    return a.int_value();
  case pb::Attr::kIntList:
    return std::vector<int64_t>(a.int_list().values().begin(),
                                a.int_list().values().end());
  case pb::Attr::kRealValue:
    return a.real_value();
  case pb::Attr::VALUE_NOT_SET:
    break;
  }
  throw Error("attribute '" + a.name() + "' has no value");
}

/// The schema defaults overridden by the message's attributes.
Attrs read_attrs(const OpInfo &info, const pb::Node &m) {
  Attrs attrs = Attrs::defaults(info.attrs);
  std::vector<bool> seen(info.attrs.size(), false);
  for (const pb::Attr &a : m.attrs()) {
    int idx = find_attr(info.attrs, a.name());
    if (idx < 0)
      throw Error(std::string(info.name) + ": unknown attribute '" + a.name() +
                  "'");
    if (seen[idx])
      throw Error(std::string(info.name) + ": attribute '" + a.name() +
                  "' given twice");
    seen[idx] = true;
    AttrValue v = attr_value(a);
    check_attr(info.name, info.attrs[idx], v);
    attrs.set(idx, std::move(v));
  }
  return attrs;
}

void add_node(Graph &g, const pb::Node &m) {
  std::optional<OpKind> kind = op_from_name(m.op());
  if (!kind)
    throw Error("unknown operator '" + m.op() + "'");
  const OpInfo &info = op_info(*kind);
  Attrs attrs = read_attrs(info, m);
  if (info.traits.variable) {
    if (!m.inputs().empty())
      throw Error(std::string(info.name) + " '" + m.name() +
                  "' cannot have operands");
    std::optional<Shape> shape;
    if (attrs.has(ops::Input::kShape))
      shape = Shape(attrs.list(ops::Input::kShape));
    if (*kind == OpKind::Input)
      g.input(m.name(), shape);
    else
      g.weight(m.name(), shape);
    return;
  }
  std::vector<ValueRef> inputs;
  for (const pb::ValueRef &r : m.inputs())
    inputs.push_back({r.node(), r.output()});
  g.add(*kind, std::move(attrs), std::move(inputs), m.name());
}

} // namespace

Graph graph_from_proto(const pb::Graph &msg, const std::string &where) {
  Graph g;
  for (int i = 0; i < msg.nodes_size(); ++i) {
    try {
      add_node(g, msg.nodes(i));
    } catch (const Error &e) {
      throw Error(where + "node " + std::to_string(i) + ": " + e.what());
    }
  }
  for (int i = 0; i < msg.outputs_size(); ++i) {
    const ValueRef v{msg.outputs(i).node(), msg.outputs(i).output()};
    if (v.node < 0 || v.node >= g.num_nodes() || v.output < 0 ||
        v.output >= g.node(v.node).num_outputs)
      throw Error(where + "output " + std::to_string(i) + ": no value " +
                  std::to_string(v.node) + ":" + std::to_string(v.output) +
                  " in the graph");
    g.mark_output(v);
  }
  return g;
}

} // namespace quarry
