//===- onnx_kept.cc - ONNX nodes quarry keeps without interpreting --------===//
#include "onnx_kept.h"
#include "onnx_restorable.h"

#include <cmath>

#include "quarry/core/error.h"
#include "quarry/models/onnx.h"

#include <onnx/defs/schema.h>

#include <algorithm>

namespace quarry::onnx_io {

std::string node_label(const onnx::NodeProto &n) {
  const std::string name = shortened_name(!n.name().empty()     ? n.name()
                                          : n.output_size() > 0 ? n.output(0)
                                                                : "");
  return "node " +
         (name.empty() ? "without a name or outputs" : "'" + name + "'") +
         " (" + n.op_type() + ")";
}

namespace {

void subgraph_reads(const onnx::GraphProto &g, std::set<std::string> defined,
                    std::set<std::string> &seen, std::vector<std::string> &out);

/// What the subgraphs among `n`'s attributes read from outside them, where
/// `defined` is what the scope around `n` defines.
void node_reads(const onnx::NodeProto &n, const std::set<std::string> &defined,
                std::set<std::string> &seen, std::vector<std::string> &out) {
  for (const auto &a : n.attribute()) {
    if (a.has_g())
      subgraph_reads(a.g(), defined, seen, out);
    for (const auto &g : a.graphs())
      subgraph_reads(g, defined, seen, out);
  }
}

void subgraph_reads(const onnx::GraphProto &g, std::set<std::string> defined,
                    std::set<std::string> &seen,
                    std::vector<std::string> &out) {
  for (const auto &v : g.input())
    defined.insert(v.name());
  for (const auto &t : g.initializer())
    defined.insert(t.name());
  for (const auto &t : g.sparse_initializer())
    defined.insert(t.values().name());
  auto read = [&](const std::string &name) {
    if (!name.empty() && !defined.count(name) && seen.insert(name).second)
      out.push_back(name);
  };
  for (const auto &n : g.node()) {
    for (const auto &name : n.input())
      read(name);
    node_reads(n, defined, seen, out);
    for (const auto &name : n.output())
      defined.insert(name);
  }
  for (const auto &v : g.output())
    read(v.name());
}

void subgraph_defines(const onnx::GraphProto &g, std::set<std::string> &out) {
  for (const auto &v : g.input())
    out.insert(v.name());
  for (const auto &t : g.initializer())
    out.insert(t.name());
  for (const auto &n : g.node()) {
    for (const auto &name : n.output())
      out.insert(name);
    names_defined_inside(n, out);
  }
}

} // namespace

std::vector<std::string> outer_references(const onnx::NodeProto &n) {
  std::set<std::string> seen;
  std::vector<std::string> out;
  node_reads(n, {}, seen, out);
  return out;
}

std::vector<std::string> names_read(const onnx::NodeProto &n) {
  std::vector<std::string> reads;
  std::set<std::string> seen;
  for (const auto &name : n.input())
    if (!name.empty() && seen.insert(name).second)
      reads.push_back(name);
  for (const auto &name : outer_references(n))
    if (seen.insert(name).second)
      reads.push_back(name);
  return reads;
}

void names_defined_inside(const onnx::NodeProto &n,
                          std::set<std::string> &out) {
  for (const auto &a : n.attribute()) {
    if (a.has_g())
      subgraph_defines(a.g(), out);
    for (const auto &g : a.graphs())
      subgraph_defines(g, out);
  }
}

onnx::TensorProto encode_constant(const std::string &name, const Constant &c) {
  using TP = onnx::TensorProto;
  TP p;
  p.set_name(name);
  p.set_data_type(c.elem);
  for (int64_t d : c.shape.dims)
    p.add_dims(d);
  switch (c.elem) {
  case TP::FLOAT:
    for (double v : c.reals)
      p.add_float_data(static_cast<float>(v));
    break;
  case TP::DOUBLE:
    for (double v : c.reals)
      p.add_double_data(v);
    break;
  case TP::INT64:
    for (int64_t v : c.ints)
      p.add_int64_data(v);
    break;
  case TP::INT32:
  case TP::INT16:
  case TP::INT8:
  case TP::UINT8:
  case TP::UINT16:
  case TP::BOOL:
    for (int64_t v : c.ints)
      p.add_int32_data(static_cast<int32_t>(v));
    break;
  case TP::UINT32:
  case TP::UINT64:
    for (int64_t v : c.ints)
      p.add_uint64_data(static_cast<uint64_t>(v));
    break;
  default:
    throw Error("constant '" + name + "' has element type " +
                elem_type_name(c.elem) + ", which quarry cannot write");
  }
  return p;
}

onnx::TensorProto encode_as(const std::string &name, const Tensor<float> &t,
                            int32_t elem) {
  if (elem == onnx::TensorProto::FLOAT || held_as_float(elem))
    return encode_tensor(name, t, elem);
  Constant c;
  c.elem = elem;
  c.shape = t.shape;
  for (float x : t.data) {
    c.reals.push_back(x);
    c.ints.push_back(static_cast<int64_t>(std::llround(x)));
  }
  return encode_constant(name, c);
}

std::set<std::string> names_held(const onnx::GraphProto &g) {
  std::set<std::string> out;
  for (const auto &vi : g.input())
    out.insert(vi.name());
  for (const auto &t : g.initializer())
    out.insert(t.name());
  for (const auto &n : g.node())
    out.insert(n.output().begin(), n.output().end());
  return out;
}

std::set<std::string> names_read_by_subgraphs(const onnx::GraphProto &g) {
  std::set<std::string> out;
  for (const auto &n : g.node())
    for (const std::string &outer : outer_references(n))
      out.insert(outer);
  return out;
}

bool static_tensor_type(const onnx::TypeProto &t, int32_t &elem, Shape &shape) {
  if (!t.has_tensor_type() || !t.tensor_type().has_shape())
    return false;
  elem = t.tensor_type().elem_type();
  shape = Shape{};
  for (const auto &d : t.tensor_type().shape().dim()) {
    if (!d.has_dim_value() || d.dim_value() < 0)
      return false;
    shape.dims.push_back(d.dim_value());
  }
  return elem != onnx::TensorProto::UNDEFINED;
}

onnx::ModelProto parse_kept(const std::string &bytes, const std::string &file) {
  onnx::ModelProto kept;
  if (!kept.ParseFromString(bytes) || !kept.has_graph())
    throw Error(SourcePos{file, 0, 0},
                "not a quarry kept-nodes file (truncated or not protobuf)");
  return kept;
}

std::string changed_operator(const onnx::NodeProto &op, int64_t from,
                             int64_t to) {
  for (const auto &a : op.attribute()) {
    std::vector<const onnx::GraphProto *> graphs;
    if (a.has_g())
      graphs.push_back(&a.g());
    for (const auto &g : a.graphs())
      graphs.push_back(&g);
    for (const auto *g : graphs)
      for (const auto &inner : g->node())
        if (std::string c = changed_operator(inner, from, to); !c.empty())
          return c;
  }
  if (from == to || !default_domain(op.domain()))
    return "";
  // Same inputs and attributes, another meaning: Softmax and its kin
  // flattened from `axis` before 13; the variadic operators broadcast only
  // from 8, PRelu's slope from 7. (The binary operators' broadcasting
  // from 7 removed their `broadcast` attribute: that is caught below.)
  static const std::pair<const char *, int64_t> kMeaningChanged[] = {
      {"Softmax", 13}, {"LogSoftmax", 13}, {"Hardmax", 13}, {"Max", 8},
      {"Min", 8},      {"Sum", 8},         {"Mean", 8},     {"PRelu", 7}};
  for (const auto &[type, since] : kMeaningChanged)
    if (op.op_type() == type && (from < since) != (to < since))
      return op.op_type();
  const auto *a =
      onnx::OpSchemaRegistry::Schema(op.op_type(), static_cast<int>(from), "");
  const auto *b =
      onnx::OpSchemaRegistry::Schema(op.op_type(), static_cast<int>(to), "");
  if (!a || a == b)
    return "";
  if (!b || b->Deprecated())
    return op.op_type();
  // The inputs and outputs the node has, position by position: the same
  // parameter in both (BatchNormalization's training outputs changed at
  // 14; a node with one output does not use them).
  const int nin = op.input_size(), nout = op.output_size();
  bool same = a->min_input() <= nin && nin <= a->max_input() &&
              b->min_input() <= nin && nin <= b->max_input() &&
              a->min_output() <= nout && nout <= a->max_output() &&
              b->min_output() <= nout && nout <= b->max_output();
  auto formal = [](const auto &params, int i) -> const auto & {
    return params[std::min<size_t>(static_cast<size_t>(i), params.size() - 1)];
  };
  for (int i = 0; same && i < nin; ++i)
    same =
        !a->inputs().empty() && !b->inputs().empty() &&
        formal(a->inputs(), i).GetName() == formal(b->inputs(), i).GetName() &&
        formal(a->inputs(), i).GetOption() ==
            formal(b->inputs(), i).GetOption();
  // An attribute the later version added means, left unset, what the
  // earlier version did (allowzero, training_mode); one it removed does
  // not; one the node sets must exist in both.
  const auto *earlier = from < to ? a : b, *later = from < to ? b : a;
  for (const auto &[attr_name, _] : earlier->attributes())
    same = same && later->attributes().count(attr_name);
  for (const auto &attr : op.attribute())
    same = same && a->attributes().count(attr.name()) &&
           b->attributes().count(attr.name());
  return same ? "" : op.op_type();
}

const onnx::FunctionProto *quarry_record(const onnx::ModelProto &kept,
                                         const char *name) {
  for (const auto &f : kept.functions())
    if (f.name() == name && f.domain() == kRecordDomain)
      return &f;
  return nullptr;
}

const onnx::FunctionProto *interface_record(const onnx::ModelProto &kept) {
  return quarry_record(kept, kInterfaceFunction);
}

std::set<std::string> imported_operators(const onnx::ModelProto &kept) {
  std::set<std::string> out;
  if (const onnx::FunctionProto *f = interface_record(kept))
    for (const auto &n : f->node())
      if (n.op_type() == kOperatorsRecord)
        for (const auto &a : n.attribute())
          if (a.name() == "types")
            out.insert(a.strings().begin(), a.strings().end());
  return out;
}

const onnx::FunctionProto *names_record(const onnx::ModelProto &kept) {
  return quarry_record(kept, kNamesFunction);
}

const onnx::FunctionProto *untyped_tail(const onnx::ModelProto &kept) {
  return quarry_record(kept, kTailFunction);
}

void drop_quarry_attrs(onnx::NodeProto &n) {
  auto *attrs = n.mutable_attribute();
  for (int i = attrs->size() - 1; i >= 0; --i)
    if (const std::string &a = attrs->Get(i).name();
        a == kReadsAttr || a == kKeptBecauseAttr || a == kShapeAttr ||
        a == kOperandsAttr || a == kResultsAttr || a == kTypesAttr ||
        a == kDimsAttr || a == kValuesHashAttr)
      attrs->DeleteSubrange(i, 1);
}

std::string kept_because(const onnx::NodeProto &n) {
  for (const auto &a : n.attribute())
    if (a.name() == kKeptBecauseAttr)
      return a.s();
  return "";
}

} // namespace quarry::onnx_io

namespace quarry {

namespace {

/// A reason short enough for one line of a message (a list of values
/// cut).
std::string one_line(const std::string &reason) {
  return reason.size() > 160 ? reason.substr(0, 157) + "..." : reason;
}

/// The kept node of each live opaque operator of `m`, in graph order
/// (nullptr for an id `kept` lacks).
std::vector<const onnx::NodeProto *>
live_kept_nodes(const Model &m, const onnx::ModelProto &kept) {
  std::vector<const onnx::NodeProto *> nodes;
  const std::vector<bool> live = m.graph.live_nodes();
  for (int32_t id = 0; id < m.graph.num_nodes(); ++id) {
    const Node &n = m.graph.node(id);
    if (!live[id] || n.kind != OpKind::Opaque)
      continue;
    const int64_t k = n.attrs.i(ops::Opaque::kId);
    nodes.push_back(k >= 0 && k < kept.graph().node_size()
                        ? &kept.graph().node(static_cast<int>(k))
                        : nullptr);
  }
  return nodes;
}

} // namespace

std::vector<std::string> kept_operator_types(const Model &m) {
  std::vector<std::string> types;
  if (m.kept_onnx.empty())
    return types;
  const onnx::ModelProto kept =
      onnx_io::parse_kept(m.kept_onnx, "the model's kept nodes");
  for (const onnx::NodeProto *n : live_kept_nodes(m, kept))
    types.push_back(n ? n->op_type() : "?");
  if (const auto *tail = onnx_io::untyped_tail(kept))
    for (const auto &n : tail->node())
      types.push_back(n.op_type());
  return types;
}

std::string unrunnable_reason(const Model &m) {
  if (m.kept_onnx.empty())
    return "";
  const onnx::ModelProto kept =
      onnx_io::parse_kept(m.kept_onnx, "the model's kept nodes");
  for (const onnx::NodeProto *kept_node : live_kept_nodes(m, kept)) {
    if (!kept_node)
      continue;
    const onnx::NodeProto &node = *kept_node;
    const std::string because = onnx_io::kept_because(node);
    return onnx_io::node_label(node) +
           " is kept from the imported model as it is" +
           (because.empty() ? "" : " (" + one_line(because) + ")") +
           "; quarry cannot run it";
  }
  const auto *tail = onnx_io::untyped_tail(kept);
  if (!tail || tail->node_size() == 0)
    return "";
  const onnx::NodeProto &first = tail->node(0);
  const int more = tail->node_size() - 1;
  return onnx_io::node_label(first) +
         " is kept from the imported model as it is (" +
         (tail->doc_string().empty() ? ""
                                     : one_line(tail->doc_string()) + "; ") +
         "the shapes of its "
         "outputs are not fixed" +
         (more > 0 ? ", nor those of the " + std::to_string(more) +
                         (more == 1 ? " node" : " nodes") + " after it"
                   : "") +
         "); quarry cannot run it";
}

} // namespace quarry
