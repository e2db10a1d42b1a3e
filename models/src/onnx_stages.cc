//===- onnx_stages.cc - Running what an imported model keeps as ONNX ------===//
#include "quarry/models/onnx_stages.h"

#include "onnx_attrs.h"
#include "onnx_kept.h"
#include "onnx_kernels.h"
#include "quarry/core/error.h"
#include "quarry/core/evaluate.h"
#include "quarry/core/float_domain.h"
#include "quarry/models/onnx.h"

#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace quarry {

using namespace onnx_io;

namespace {

/// `n` without the attributes quarry adds to the nodes it keeps.
onnx::NodeProto as_written(const onnx::NodeProto &n) {
  onnx::NodeProto out = n;
  drop_quarry_attrs(out);
  return out;
}

using onnx_io::node_label;

bool is_float_type(int32_t elem) {
  return elem == onnx::TensorProto::FLOAT ||
         elem == onnx::TensorProto::DOUBLE || held_as_float(elem);
}

/// `v` as an initializer named `name`: float16 and bfloat16 are float32 to
/// quarry, as everywhere else.
onnx::TensorProto encode_held(const std::string &name, const HeldValue &v) {
  return encode_as(name, v.value,
                   held_as_float(v.elem) ? onnx::TensorProto::FLOAT : v.elem);
}

HeldValue held_of(const onnx::TensorProto &t) {
  const Constant c = decode_tensor(t);
  return {c.as_float(), c.elem};
}

} // namespace

struct KeptOnnx::Parts {
  std::string file;
  onnx::ModelProto kept;
  const onnx::FunctionProto *tail = nullptr;
  std::map<std::string, const onnx::TensorProto *> initializers;
  /// The model's ONNX opset.
  int64_t opset = 0;

  /// The constants kept nodes read, decoded on first use: a kept node
  /// runs on every run of the model.
  mutable HeldValues decoded;

  /// The value named `name`: in `known`, else a constant kept nodes read.
  const HeldValue *find(const std::string &name,
                        const HeldValues &known) const {
    if (auto k = known.find(name); k != known.end())
      return &k->second;
    if (auto d = decoded.find(name); d != decoded.end())
      return &d->second;
    auto init = initializers.find(name);
    if (init == initializers.end())
      return nullptr;
    return &decoded.emplace(name, held_of(*init->second)).first->second;
  }

  /// Throws why value `name`, which node `n` reads, is not there: a graph
  /// input that is not a tensor of fixed shape (quarry feeds only those),
  /// else a value no node computed.
  [[noreturn]] void missing(const onnx::NodeProto &n,
                            const std::string &name) const {
    const std::string where = file + ": " + node_label(n) + ": ";
    for (const auto &vi : kept.graph().value_info())
      if (vi.name() == name)
        throw Unrunnable(where + "it reads graph input '" + name + "', " +
                         (vi.type().has_tensor_type()
                              ? "a tensor of no fixed shape (fix it with "
                                "--input-shape)"
                              : "which is not a tensor") +
                         "; quarry feeds fixed-shape tensors only");
    throw Error(where + "it reads '" + name + "', which is not computed");
  }

  /// Runs `n`, each input found in `known` or the kept constants: its
  /// outputs, one per output the node names (empty names skipped).
  std::vector<HeldValue> run(const onnx::NodeProto &kept_node,
                             const HeldValues &known) const;

  /// `n` imported alone, every operand a constant, and evaluated by the
  /// reference semantics; nullopt when quarry cannot express it even so,
  /// with why in `because` where the import says.
  std::optional<std::vector<HeldValue>>
  evaluate_alone(const onnx::NodeProto &n, const HeldValues &known,
                 std::string &because) const;
};

std::vector<HeldValue> KeptOnnx::Parts::run(const onnx::NodeProto &kept_node,
                                            const HeldValues &known) const {
  const onnx::NodeProto n = as_written(kept_node);
  if (!default_domain(n.domain()) || !has_kernel(n.op_type())) {
    // Why it is kept with its operands known, else why it was at import.
    std::string because;
    if (auto out = evaluate_alone(n, known, because))
      return std::move(*out);
    if (because.empty())
      because = kept_because(kept_node);
    throw Unrunnable(file + ": " + node_label(n) +
                     " is kept from the imported model as it is" +
                     (because.empty() ? "" : " (" + because + ")") +
                     ", and quarry has no kernel for it");
  }
  std::vector<const HeldValue *> in;
  for (const auto &name : n.input()) {
    if (name.empty()) {
      in.push_back(nullptr);
      continue;
    }
    const HeldValue *v = find(name, known);
    if (!v)
      missing(n, name);
    in.push_back(v);
  }
  std::vector<HeldValue> all;
  try {
    all = run_kernel(n, opset, in);
  } catch (const Error &e) {
    throw Error(file + ": " + node_label(n) + ": " + e.what());
  }
  std::vector<HeldValue> named;
  for (int i = 0; i < n.output_size() && i < static_cast<int>(all.size()); ++i)
    if (!n.output(i).empty())
      named.push_back(std::move(all[i]));
  return named;
}

std::optional<std::vector<HeldValue>>
KeptOnnx::Parts::evaluate_alone(const onnx::NodeProto &n,
                                const HeldValues &known,
                                std::string &because) const {
  onnx::ModelProto one;
  one.set_ir_version(std::max<int64_t>(kept.ir_version(), 4));
  *one.mutable_opset_import() = kept.opset_import();
  onnx::GraphProto *g = one.mutable_graph();
  g->set_name("node");
  for (const auto &name : names_read(n)) {
    const HeldValue *v = find(name, known);
    if (!v)
      missing(n, name);
    *g->add_initializer() = encode_held(name, *v);
  }
  *g->add_node() = n;
  // The outputs' element types, which the import gives its results.
  onnx::ModelProto typed = one;
  for (const auto &name : n.output())
    if (!name.empty())
      g->add_output()->set_name(name);
  try {
    onnx::shape_inference::InferShapes(typed);
  } catch (const std::exception &) {
  }
  for (auto &out : *g->mutable_output())
    for (const auto &vi : typed.graph().value_info())
      if (vi.name() == out.name())
        *out.mutable_type() = vi.type();
  // With every operand known, a node quarry can express folds; one that
  // is still kept has no meaning here.
  Model alone;
  try {
    alone = import_onnx_bytes(one.SerializeAsString(), file);
  } catch (const Error &e) {
    // Why the node cannot be read even so, without the file and the node
    // named again.
    because = e.what();
    const std::string label = node_label(n) + ": ";
    if (const size_t at = because.rfind(label); at != std::string::npos)
      because = because.substr(at + label.size());
    return std::nullopt;
  }
  if (!unrunnable_reason(alone).empty()) {
    const onnx::ModelProto again = parse_kept(alone.kept_onnx, file);
    for (const auto &kept_node : again.graph().node())
      if (because.empty())
        because = kept_because(kept_node);
    return std::nullopt;
  }
  std::vector<Tensor<float>> values;
  try {
    values = evaluate(FloatDomain{}, alone.graph, alone.weights);
  } catch (const Error &e) {
    throw Error(file + ": " + node_label(n) + ": " + e.what());
  }
  std::vector<HeldValue> out;
  for (int i = 0; i < g->output_size(); ++i) {
    const auto &type = g->output(i).type();
    const int32_t elem = type.has_tensor_type() ? type.tensor_type().elem_type()
                                                : onnx::TensorProto::FLOAT;
    out.push_back(
        {std::move(values.at(i)), elem == 0 ? onnx::TensorProto::FLOAT : elem});
  }
  return out;
}

KeptOnnx::KeptOnnx(const Model &m, std::string file)
    : parts_(std::make_unique<Parts>()) {
  parts_->file = std::move(file);
  if (!m.kept_onnx.empty())
    parts_->kept = parse_kept(m.kept_onnx, parts_->file);
  parts_->tail = untyped_tail(parts_->kept);
  for (const auto &t : parts_->kept.graph().initializer())
    parts_->initializers[t.name()] = &t;
  for (const auto &op : parts_->kept.opset_import())
    if (default_domain(op.domain()))
      parts_->opset = op.version();
}

KeptOnnx::~KeptOnnx() = default;

std::vector<HeldValue>
KeptOnnx::run_node(int64_t id, const std::vector<HeldValue> &operands) const {
  const auto &nodes = parts_->kept.graph().node();
  if (id < 0 || id >= nodes.size())
    throw Error(parts_->file + ": opaque operator #" + std::to_string(id) +
                " has no kept node");
  const onnx::NodeProto &n = nodes[static_cast<int>(id)];
  // The opaque operator's operands are the values the node reads from the
  // graph, in the order kReadsAttr lists them.
  HeldValues known;
  for (const auto &a : n.attribute())
    if (a.name() == kReadsAttr)
      for (int i = 0; i < a.strings_size() && i < std::ssize(operands); ++i)
        known[a.strings(i)] = operands[i];
  return parts_->run(n, known);
}

std::vector<std::string> KeptOnnx::model_output_names() const {
  std::vector<std::string> out;
  for (const auto &o : parts_->kept.graph().output())
    out.push_back(o.name());
  return out;
}

std::vector<int32_t> KeptOnnx::model_output_elems() const {
  std::vector<int32_t> out;
  for (const auto &o : parts_->kept.graph().output())
    out.push_back(o.type().has_tensor_type()
                      ? o.type().tensor_type().elem_type()
                      : int32_t{onnx::TensorProto::FLOAT});
  return out;
}

std::vector<std::string> KeptOnnx::graph_output_names() const {
  std::set<std::string> by_tail;
  if (parts_->tail)
    by_tail.insert(parts_->tail->output().begin(),
                   parts_->tail->output().end());
  std::vector<std::string> out;
  for (const auto &name : model_output_names())
    if (!by_tail.count(name))
      out.push_back(name);
  if (parts_->tail)
    out.insert(out.end(), parts_->tail->input().begin(),
               parts_->tail->input().end());
  return out;
}

int32_t KeptOnnx::variable_elem(const std::string &variable) const {
  for (const auto &in : parts_->kept.graph().input())
    if (in.name() == variable && in.type().has_tensor_type())
      return in.type().tensor_type().elem_type();
  return onnx::TensorProto::FLOAT;
}

std::vector<std::string> KeptOnnx::integer_parameters() const {
  std::vector<std::string> out;
  for (const auto &in : parts_->kept.graph().input()) {
    if (!in.type().has_tensor_type())
      continue;
    const auto &t = in.type().tensor_type();
    const int32_t e = t.elem_type();
    if (e == onnx::TensorProto::FLOAT || e == onnx::TensorProto::FLOAT16 ||
        e == onnx::TensorProto::BFLOAT16 || e == onnx::TensorProto::DOUBLE ||
        e == onnx::TensorProto::UNDEFINED)
      continue;
    int64_t elements = 1;
    for (const auto &d : t.shape().dim())
      elements *= d.has_dim_value() ? d.dim_value() : 9;
    if (elements <= 8)
      out.push_back(in.name());
  }
  return out;
}

std::map<std::string, std::string> KeptOnnx::graph_input_names() const {
  std::map<std::string, std::string> out;
  if (const auto *f = interface_record(parts_->kept))
    for (int i = 0; i < f->input_size() && i < f->output_size(); ++i)
      out[f->input(i)] = f->output(i);
  return out;
}

int KeptOnnx::tail_size() const {
  return parts_->tail ? parts_->tail->node_size() : 0;
}

std::string KeptOnnx::tail_node_label(int k) const {
  return node_label(parts_->tail->node(k));
}

void KeptOnnx::run_tail_node(int k, HeldValues &known) const {
  const onnx::NodeProto &n = parts_->tail->node(k);
  std::vector<HeldValue> out = parts_->run(n, known);
  size_t next = 0;
  for (const auto &name : n.output())
    if (!name.empty() && next < out.size())
      known[name] = std::move(out[next++]);
}

std::optional<Model> KeptOnnx::import_tail(int first,
                                           const HeldValues &known) const {
  const onnx::FunctionProto &tail = *parts_->tail;
  onnx::ModelProto rest;
  rest.set_ir_version(std::max<int64_t>(parts_->kept.ir_version(), 4));
  *rest.mutable_opset_import() = parts_->kept.opset_import();
  onnx::GraphProto *g = rest.mutable_graph();
  g->set_name("tail");
  std::set<std::string> defined, declared;
  for (int k = first; k < tail.node_size(); ++k) {
    const onnx::NodeProto &n = tail.node(k);
    for (const auto &name : names_read(n)) {
      if (defined.count(name) || !declared.insert(name).second)
        continue;
      auto v = known.find(name);
      if (v == known.end()) {
        if (auto init = parts_->initializers.find(name);
            init != parts_->initializers.end())
          *g->add_initializer() = *init->second;
        else
          parts_->missing(n, name);
        continue;
      }
      const HeldValue &h = v->second;
      if (is_float_type(h.elem) && h.value.numel() > kConstantElements) {
        auto *in = g->add_input();
        in->set_name(name);
        auto *tt = in->mutable_type()->mutable_tensor_type();
        tt->set_elem_type(onnx::TensorProto::FLOAT);
        auto *shape = tt->mutable_shape();
        for (int64_t d : h.value.shape.dims)
          shape->add_dim()->set_dim_value(d);
      } else {
        *g->add_initializer() = encode_held(name, h);
      }
    }
    *g->add_node() = as_written(n);
    for (const auto &name : n.output())
      defined.insert(name);
  }
  for (const auto &name : tail.output())
    if (defined.count(name) && !known.count(name))
      g->add_output()->set_name(name);
  if (g->output_size() == 0)
    return Model{};
  Model m = import_onnx_bytes(rest.SerializeAsString(), parts_->file);
  // Node `first` kept at the head of the new tail: its shapes still depend
  // on values.
  const onnx::ModelProto again = parse_kept(m.kept_onnx, parts_->file);
  if (const auto *t = untyped_tail(again);
      t && t->node_size() > 0 &&
      t->node(0).output(0) == tail.node(first).output(0))
    return std::nullopt;
  return m;
}

} // namespace quarry
