//===- onnx_import.cc - Reading an ONNX model into a quarry Model ---------===//
#include "onnx_attrs.h"
#include "onnx_fold.h"
#include "onnx_importer.h"
#include "onnx_kept.h"
#include "onnx_late_opsets.h"

#include "quarry/core/evaluate.h"
#include "quarry/core/file_io.h"
#include "quarry/core/float_domain.h"

#include <algorithm>
#include <cctype>
#include <queue>
#include <set>

namespace quarry::onnx_io {

Importer::Importer(const onnx::ModelProto &model, const std::string &file,
                   const OnnxImportOptions &opts)
    : model_(model), file_(file), opts_(opts) {}

std::string Importer::where() const {
  return node_ ? node_label(*node_) + ": " : "";
}

void Importer::fail(const std::string &message) const {
  throw Error(SourcePos{file_, 0, 0}, where() + message);
}

std::string Importer::reason_of(const Error &e) const {
  // Without the file, and without the node fail() named: this one, or the
  // node a handler ran as (run_as: CastLike as its Cast).
  std::string what = e.what();
  const std::string file = SourcePos{file_, 0, 0}.str() + ": ";
  if (what.compare(0, file.size(), file) == 0)
    what = what.substr(file.size());
  if (const size_t named = what.find("): ");
      what.rfind("node ", 0) == 0 && named != std::string::npos)
    what = what.substr(named + 3);
  return what;
}

void Importer::run_as(const onnx::NodeProto &n,
                      const std::function<void(Importer &)> &h) {
  const onnx::NodeProto *saved = node_;
  node_ = &n;
  try {
    h(*this);
  } catch (...) {
    node_ = saved;
    throw;
  }
  node_ = saved;
}

ValueRef Importer::value(const std::string &name) {
  auto v = values_.find(name);
  if (v == values_.end())
    fail("'" + name + "' is never computed");
  return v->second;
}

int Importer::axis(int64_t axis, int rank) const {
  if (axis < -rank || axis >= rank)
    fail("axis " + std::to_string(axis) + " out of range for rank " +
         std::to_string(rank));
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

std::string Importer::fresh_name(const std::string &onnx_name) {
  // Text-form identifiers: letters, digits and '_', not a keyword.
  std::string s;
  for (char c : onnx_name)
    s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])) ||
      s == "input" || s == "weight" || s == "output")
    s = "v_" + s;
  std::string name = s;
  for (int k = 2; taken_.count(name); ++k)
    name = s + "_" + std::to_string(k);
  taken_.insert(name);
  return name;
}

void Importer::read_inputs_and_initializers() {
  const onnx::GraphProto &graph = model_.graph();
  for (const auto &init : graph.initializer()) {
    // A malformed tensor (too few values) is refused at once; a type
    // quarry cannot decode is for kept nodes to read.
    if (!decodable(init.data_type())) {
      undecoded_[init.name()] = &init;
      continue;
    }
    try {
      constants_.add_unread(init);
    } catch (const Error &e) {
      fail(std::string("initializer: ") + e.what());
    }
  }
  for (const auto &[name, file] : opts_.input_values) {
    bool found = false;
    for (const auto &input : graph.input())
      found = found || input.name() == name;
    if (!found)
      fail("--input-value names '" + name + "', which is not a graph input");
    onnx::TensorProto::DataType elem = onnx::TensorProto::FLOAT;
    std::string upper;
    for (char c : file.elem_type)
      upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (upper.empty()) { // a number: the input's own type
      for (const auto &input : graph.input())
        if (input.name() == name && input.type().has_tensor_type())
          elem = static_cast<onnx::TensorProto::DataType>(
              input.type().tensor_type().elem_type());
    } else if (!onnx::TensorProto::DataType_Parse(upper, &elem)) {
      elem = onnx::TensorProto::FLOAT;
    }
    Constant c;
    c.elem = elem;
    c.shape = file.value.shape;
    for (float v : file.value.data) {
      c.reals.push_back(v);
      c.ints.push_back(static_cast<int64_t>(v));
    }
    constants_.set(name, std::move(c));
  }
  for (const auto &input : graph.input()) {
    if (constants_.contains(input.name()))
      continue; // an initializer listed as an input, or a fixed value
    const auto &type = input.type();
    if (!type.has_tensor_type()) {
      // A sequence, an optional, a map: only the untyped tail reads it.
      untyped_.insert(input.name());
      *kept_.mutable_graph()->add_value_info() = input;
      tail();
      continue;
    }
    const int elem = type.tensor_type().elem_type();
    Shape shape;
    auto given = opts_.input_shapes.find(input.name());
    if (given != opts_.input_shapes.end()) {
      shape = given->second;
    } else {
      // No shape at all is an unknown rank, not a scalar (found by fuzzing:
      // ONNX's shape inference crashes on a convolution weight taken for a
      // scalar).
      if (!type.tensor_type().has_shape())
        fail("graph input '" + input.name() +
             "' has no shape; fix it with --input-shape " + input.name() +
             "=...");
      for (const auto &d : type.tensor_type().shape().dim()) {
        if (!d.has_dim_value() || d.dim_value() < 1)
          fail("graph input '" + input.name() + "' has dynamic dimension '" +
               d.dim_param() + "'; fix it with --input-shape " + input.name() +
               "=...");
        shape.dims.push_back(d.dim_value());
      }
    }
    const ValueRef v = g_.input(fresh_name(input.name()), shape);
    values_[input.name()] = v;
    if (held_exactly(elem))
      held_[input.name()] = elem; // as float32; export casts it
    else if (held_as_float(elem) && elem != onnx::TensorProto::FLOAT)
      half_[input.name()] = elem;
    else if (!held_as_float(elem))
      elem_[input.name()] = elem; // only kept nodes read it
    if (elem != onnx::TensorProto::FLOAT)
      record_elem(g_.node(v.node).name, elem); // export gives it back
  }
  for (const auto &[name, shape] : opts_.input_shapes)
    if (!values_.count(name))
      fail("--input-shape names '" + name + "', which is not " +
           (untyped_.count(name) ? "a tensor" : "a graph input"));
}

Model Importer::run() {
  if (!model_.has_graph())
    fail("the file holds no graph (truncated or not an ONNX model)");
  for (const auto &op : model_.opset_import())
    if (default_domain(op.domain()))
      opset_ = op.version();
  // A model of other domains alone imports no ONNX operator: its nodes are
  // all kept.
  const bool onnx_domain =
      std::any_of(model_.opset_import().begin(), model_.opset_import().end(),
                  [](const auto &op) { return default_domain(op.domain()); });
  if (onnx_domain && (opset_ < 1 || opset_ > kLatestOpset))
    fail("opset " + std::to_string(opset_) + " is not supported (opsets 1 to " +
         std::to_string(kLatestOpset) + " are)");
  kept_.set_ir_version(model_.ir_version());
  *kept_.mutable_opset_import() = model_.opset_import();
  // The model's local functions, which its kept nodes may call.
  for (const auto &f : model_.functions()) {
    if (f.domain() == kRecordDomain)
      fail("local function '" + f.name() + "' is of domain '" + kRecordDomain +
           "', which quarry keeps for its own records");
    *kept_.add_functions() = f;
  }
  read_inputs_and_initializers();
  const auto &handlers = onnx_handlers();
  for (const onnx::NodeProto *n : nodes_in_order())
    import_call_or_node(*n, handlers, 0);
  node_ = nullptr;
  if (model_.graph().output_size() == 0)
    fail("the graph has no outputs (truncated file?)");
  for (const auto &out : model_.graph().output()) {
    if (untyped_.count(out.name())) {
      tail().add_output(out.name());
      continue;
    }
    auto it = values_.find(out.name());
    if (it == values_.end()) {
      if (!constants_.contains(out.name()))
        fail("graph output '" + out.name() + "' is never computed");
      // An integer constant goes out cast back to its type when float32
      // holds its values exactly; else as a kept Constant.
      if (constants_.elem(out.name()) != onnx::TensorProto::FLOAT)
        for (int64_t v : constants_.at(out.name()).ints)
          if (v > (int64_t{1} << 24) || v < -(int64_t{1} << 24)) {
            keep_constant_output(out.name());
            break;
          }
      g_.mark_output(in_const_as_value(out.name()));
      continue;
    }
    g_.mark_output(it->second);
  }
  // What the tail reads are the graph's last outputs (onnx_kept.h).
  for (ValueRef v : tail_reads_)
    g_.mark_output(v);
  // Export writes the model's interface back as it was declared
  // (onnx_kept.h): its outputs (each cast back to its declared type where
  // quarry holds it as float32: a bool as 0 and 1, an integer constant),
  // the names of its inputs, its metadata.
  *kept_.mutable_graph()->mutable_output() = model_.graph().output();
  for (auto &out : *kept_.mutable_graph()->mutable_output()) {
    // A float32 value the model declares otherwise (found by fuzzing: a
    // float initializer declared int8) goes out as what it is.
    const std::string &name = out.name();
    const bool other =
        untyped_.count(name) || held_.count(name) || elem_.count(name) ||
        (constants_.contains(name) && !held_as_float(constants_.elem(name)));
    // float16 and bfloat16, computed as float32, go out cast back.
    if (!other && out.type().has_tensor_type() &&
        !held_as_float(out.type().tensor_type().elem_type()))
      out.mutable_type()->mutable_tensor_type()->set_elem_type(
          onnx::TensorProto::FLOAT);
  }
  record_interface();
  // Keep only the values of weights the graph uses.
  WeightTable used;
  for (const Node &n : g_.nodes())
    if (n.kind == OpKind::Weight)
      if (auto w = weights_.find(n.name); w != weights_.end())
        used.insert(weights_.extract(w)); // moved: a model's weights are large
  Model m{std::move(g_), std::move(used)};
  m.kept_onnx = kept_.SerializeAsString();
  return m;
}

std::vector<const onnx::NodeProto *> Importer::nodes_in_order() {
  // ONNX asks for nodes in topological order; ONNX Runtime sorts them
  // itself, and exporters write them otherwise. Kahn's order, each node as
  // early as the model has it.
  const auto &nodes = model_.graph().node();
  const int count = nodes.size();
  std::unordered_map<std::string, int> producer;
  for (int i = 0; i < count; ++i)
    for (const auto &o : nodes[i].output())
      if (!o.empty())
        producer.emplace(o, i);
  std::vector<std::vector<int>> readers(count);
  std::vector<std::vector<int>> reads(count);
  std::vector<int> waiting(count, 0);
  for (int i = 0; i < count; ++i)
    for (const std::string &name : names_read(nodes[i]))
      if (auto p = producer.find(name); p != producer.end()) {
        readers[p->second].push_back(i);
        reads[i].push_back(p->second);
        ++waiting[i];
      }
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (int i = 0; i < count; ++i)
    if (waiting[i] == 0)
      ready.push(i);
  std::vector<const onnx::NodeProto *> order;
  while (!ready.empty()) {
    const int i = ready.top();
    ready.pop();
    order.push_back(&nodes[i]);
    for (int r : readers[i])
      if (--waiting[r] == 0)
        ready.push(r);
  }
  if (static_cast<int>(order.size()) == count)
    return order;
  // A node left waits on another left: following such waits count times
  // from any of them ends on a cycle.
  int at = 0;
  while (waiting[at] == 0)
    ++at;
  for (int step = 0; step < count; ++step)
    for (int p : reads[at])
      if (waiting[p] > 0) {
        at = p;
        break;
      }
  node_ = &nodes[at];
  fail("it reads what it computes, through a cycle of the graph");
}

void Importer::record_interface() {
  onnx::FunctionProto &f = *kept_.add_functions();
  f.set_name(kInterfaceFunction);
  f.set_domain(kRecordDomain);
  // The operators the model's own runtime ran (onnx_kept.h).
  std::set<std::string> types;
  for (const auto &n : model_.graph().node())
    if (default_domain(n.domain()))
      types.insert(n.op_type());
  onnx::NodeProto &ops = *f.add_node();
  ops.set_op_type(kOperatorsRecord);
  ops.set_domain(kRecordDomain);
  add_attr(ops, "types", std::vector<std::string>(types.begin(), types.end()));
  for (const auto &input : model_.graph().input()) {
    if (untyped_.count(input.name())) { // read by the tail under its name
      f.add_input(input.name());
      f.add_output(input.name());
      continue;
    }
    auto v = values_.find(input.name());
    if (v == values_.end() || constants_.contains(input.name()))
      continue; // an initializer listed as an input, or a fixed value
    const Node &n = g_.node(v->second.node);
    if (n.kind != OpKind::Input)
      continue;
    f.add_input(n.name);
    f.add_output(input.name());
  }
  kept_.set_producer_name(model_.producer_name());
  kept_.set_producer_version(model_.producer_version());
  kept_.set_domain(model_.domain());
  kept_.set_model_version(model_.model_version());
  kept_.set_doc_string(model_.doc_string());
  *kept_.mutable_metadata_props() = model_.metadata_props();
  kept_.mutable_graph()->set_name(model_.graph().name());
  kept_.mutable_graph()->set_doc_string(model_.graph().doc_string());
}

void Importer::record_elem(const std::string &variable, int32_t elem) {
  auto *vi = kept_.mutable_graph()->add_input();
  vi->set_name(variable);
  vi->mutable_type()->mutable_tensor_type()->set_elem_type(elem);
}

void Importer::keep_constant_output(const std::string &name) {
  onnx::NodeProto k;
  k.set_op_type("Constant");
  k.set_name(name);
  k.add_output(name);
  onnx::AttributeProto *value = k.add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  try {
    *value->mutable_t() = encode_constant(name, constants_.at(name));
  } catch (const Error &e) {
    fail("graph output '" + name + "': " + e.what());
  }
  node_ = &k;
  const std::string why = keep_node("a graph output that float32 cannot hold");
  node_ = nullptr;
  if (!why.empty())
    fail("graph output '" + name + "', a constant, cannot be kept: " + why);
}

ValueRef Importer::in_const_as_value(const std::string &name) {
  auto v = values_.find(name);
  if (v != values_.end())
    return v->second;
  if (!constants_.contains(name))
    fail("uses '" + name + "', which no earlier node or initializer defines");
  const int32_t elem = constants_.elem(name);
  const ValueRef w = constant_weight(name, constants_.as_float(name));
  name_weight(w, name, shape(w));
  if (elem != onnx::TensorProto::FLOAT && held_as_float(elem))
    record_elem(g_.node(w.node).name, elem);
  values_[name] = w;
  return w;
}

int Importer::num_inputs() const { return node_->input_size(); }

bool Importer::has_input(int i) const {
  return i < node_->input_size() && !node_->input(i).empty();
}

bool Importer::has_output(int i) const {
  return i < node_->output_size() && !node_->output(i).empty();
}

ValueRef Importer::in(int i) {
  if (!has_input(i))
    fail("input " + std::to_string(i) + " is missing");
  return in_const_as_value(node_->input(i));
}

const Constant *Importer::const_in(int i) const {
  if (!has_input(i))
    return nullptr;
  return constants_.find(node_->input(i));
}

Shape Importer::input_shape(int i) const {
  if (const Constant *c = const_in(i))
    return c->shape;
  if (!has_input(i))
    fail("input " + std::to_string(i) + " is missing");
  auto v = values_.find(node_->input(i));
  if (v == values_.end())
    fail("input '" + node_->input(i) + "' is never computed before");
  return shape(v->second);
}

const Constant &Importer::need_const(int i, const char *what) const {
  const Constant *c = const_in(i);
  if (!c)
    fail(std::string(what) + " (input " + std::to_string(i) +
         ") must be a constant (an initializer or Constant node)");
  return *c;
}

const onnx::AttributeProto *Importer::attr(const char *name) const {
  for (const auto &a : node_->attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

int64_t Importer::attr_int(const char *name, int64_t def) const {
  const auto *a = attr(name);
  return a ? a->i() : def;
}
float Importer::attr_float(const char *name, float def) const {
  const auto *a = attr(name);
  return a ? a->f() : def;
}
std::string Importer::attr_string(const char *name,
                                  const std::string &def) const {
  const auto *a = attr(name);
  return a ? a->s() : def;
}
std::optional<std::vector<int64_t>>
Importer::attr_ints(const char *name) const {
  const auto *a = attr(name);
  if (!a)
    return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

std::vector<ValueRef> Importer::add_multi(OpKind kind, Attrs attrs,
                                          std::vector<ValueRef> inputs) {
  try {
    return g_.add(kind, std::move(attrs), std::move(inputs),
                  node_->name().empty() ? "" : fresh_name(node_->name()));
  } catch (const Error &e) {
    fail(e.what());
  }
}

ValueRef Importer::add(OpKind kind, Attrs attrs, std::vector<ValueRef> inputs) {
  return add_multi(kind, std::move(attrs), std::move(inputs)).at(0);
}

std::optional<Importer::Evaluated>
Importer::evaluate_handler(const Handler &h, int64_t max_elements) {
  const int before = g_.num_nodes();
  try {
    h(*this);
    propagate_held();
  } catch (const Error &) {
    roll_back(before);
    return std::nullopt;
  }
  // What the handler built, alone: its nodes, and the weights they read,
  // the values of the node's outputs marked.
  Graph alone;
  Bindings<float> bound;
  std::map<int32_t, std::vector<ValueRef>> copied;
  bool ok = true;
  auto copy = [&](ValueRef v) -> ValueRef {
    auto c = copied.find(v.node);
    if (c == copied.end()) {
      const Node &n = g_.node(v.node);
      std::vector<ValueRef> outs;
      if (n.kind == OpKind::Weight) {
        outs.push_back(alone.weight(n.name, n.types.at(0).shape));
        bound.emplace(n.name, weights_.at(n.name));
      } else if (v.node < before) {
        ok = false; // an earlier value of the graph is no constant
        return v;
      } else {
        std::vector<ValueRef> ins;
        for (ValueRef in : n.inputs)
          ins.push_back(copied.at(in.node).at(in.output));
        outs = alone.add(n.kind, n.attrs, std::move(ins));
      }
      c = copied.emplace(v.node, std::move(outs)).first;
    }
    return c->second.at(v.output);
  };
  for (int32_t id = before; id < g_.num_nodes() && ok; ++id) {
    for (const TensorType &t : g_.node(id).types)
      ok = ok && t.shape.numel() <= max_elements;
    for (ValueRef in : g_.node(id).inputs)
      if (ok)
        copy(in);
    if (ok)
      copy({id, 0});
  }
  for (int k = 0; k < node_->output_size() && ok; ++k) {
    auto v = node_->output(k).empty() ? values_.end()
                                      : values_.find(node_->output(k));
    ok = v != values_.end();
    if (ok)
      alone.mark_output(copy(v->second));
  }
  std::optional<Evaluated> out;
  try {
    if (ok)
      out = Evaluated{evaluate(FloatDomain{}, alone, bound), {}};
  } catch (const Error &) {
    out.reset(); // the handler's own import will say what is wrong
  }
  for (const auto &name : node_->output()) {
    auto held = held_.find(name);
    if (out)
      out->elems.push_back(held == held_.end() ? onnx::TensorProto::FLOAT
                                               : held->second);
    if (held != held_.end())
      held_.erase(held);
  }
  // The names it took are free again, so that the import names nodes as
  // it would have.
  for (int32_t id = before; id < g_.num_nodes(); ++id)
    taken_.erase(g_.node(id).name);
  roll_back(before);
  for (const auto &name : node_->output())
    values_.erase(name);
  return out;
}

ValueRef Importer::constant_weight(const std::string &hint,
                                   Tensor<float> value) {
  const std::string name = fresh_name(hint);
  const ValueRef w = g_.weight(name, value.shape);
  weights_.emplace(name, std::move(value));
  return w;
}

void Importer::set_output(int i, ValueRef v) {
  if (i < node_->output_size() && !node_->output(i).empty())
    values_[node_->output(i)] = v;
}

bool Importer::is_bool(int i) const {
  return held_elem(i) == onnx::TensorProto::BOOL;
}

int32_t Importer::held_elem(int i) const {
  if (!has_input(i))
    return 0;
  if (const Constant *c = const_in(i))
    return held_as_float(c->elem) ? 0 : c->elem;
  auto h = held_.find(node_->input(i));
  return h == held_.end() ? 0 : h->second;
}

void Importer::set_held_output(int i, int32_t elem) {
  if (i < node_->output_size() && !node_->output(i).empty())
    held_[node_->output(i)] = elem;
}

bool passes_type_through(std::string_view op) {
  // Their outputs have their first operand's element type, and their
  // values are the operands' values (or their greatest or least): the
  // same in float32 as in the integers it holds exactly. (The gathers read
  // their integer indices as positions, which float32 holds exactly too.)
  static const std::set<std::string, std::less<>> same_type = {
      "Identity",     "Dropout",        "Reshape",      "Flatten", "Squeeze",
      "Unsqueeze",    "Transpose",      "Concat",       "Slice",   "Split",
      "Gather",       "GatherElements", "Expand",       "Tile",    "Pad",
      "DepthToSpace", "SpaceToDepth",   "Max",          "Min",     "Clip",
      "Relu",         "MaxPool",        "GlobalMaxPool"};
  return same_type.count(op) > 0;
}

void Importer::propagate_held() {
  const int32_t elem = held_elem(0);
  if (!passes_type_through(node_->op_type()) || elem == 0)
    return;
  for (int k = 0; k < node_->output_size(); ++k)
    set_held_output(k, elem);
}

void Importer::set_output_const(int i, Constant c) {
  if (i < node_->output_size() && !node_->output(i).empty())
    constants_.set(node_->output(i), std::move(c));
}

} // namespace quarry::onnx_io
