//===- onnx_import_kept.cc - Keeping what quarry cannot express -----------===//
//
// A node quarry has no handler for, whose handler refuses it, that holds
// subgraphs or that reads a tensor which is not float32 is kept: it becomes
// an opaque operator over the values it reads, its original NodeProto goes
// to Model::kept_onnx (onnx_kept.h), and ONNX shape inference, run on the
// node alone with its operands' types, gives its outputs' types. ONNX's
// checker sees every node first (import_node): handlers and shape inference
// trust the node's form, and inference crashed on some malformed nodes (a
// Scan whose body names an unknown operator); window attributes and kernel
// ranks, which the checker leaves alone, are screened before inference.
//
//===----------------------------------------------------------------------===//
#include "onnx_attrs.h"
#include "onnx_fold.h"
#include "onnx_importer.h"
#include "onnx_kept.h"

#include <onnx/checker.h>
#include <onnx/defs/data_type_utils.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <cctype>
#include <set>

namespace quarry::onnx_io {

namespace {

bool has_subgraphs(const onnx::NodeProto &n) {
  for (const auto &a : n.attribute())
    if (a.has_g() || a.graphs_size() > 0)
      return true;
  return false;
}

} // namespace

std::unordered_map<std::string, int> Importer::opset_imports() const {
  std::unordered_map<std::string, int> opsets;
  for (const auto &o : model_.opset_import())
    opsets[o.domain()] = static_cast<int>(o.version());
  return opsets;
}

std::string Importer::onnx_checker_verdict(const onnx::NodeProto &n) const {
  onnx::checker::CheckerContext ctx;
  ctx.set_ir_version(static_cast<int>(model_.ir_version()));
  ctx.set_opset_imports(opset_imports());
  ctx.set_schema_registry(onnx::OpSchemaRegistry::Instance());
  // What the node reads from this graph is in scope; whether it is defined
  // is for the import to say (keep_node names a missing value).
  onnx::checker::LexicalScopeContext scope;
  for (const auto &name : n.input())
    scope.add(name);
  for (const auto &name : outer_references(n))
    scope.add(name);
  try {
    onnx::checker::check_node(n, ctx, scope);
  } catch (const std::exception &e) {
    // The checker appends its context on further lines; one line is enough.
    std::string what = e.what();
    return "the ONNX checker rejects it: " + what.substr(0, what.find('\n'));
  }
  return "";
}

std::string Importer::non_tensor_misread(const onnx::NodeProto &n) const {
  // The checker leaves types to inference, whose functions take a tensor
  // where the schema names one (found by fuzzing: MaxUnpool reading a map
  // crashed it). Only graph inputs have a type before inference.
  if (!default_domain(n.domain()))
    return "";
  auto opsets = opset_imports();
  const auto *schema =
      onnx::OpSchemaRegistry::Schema(n.op_type(), opsets[""], "");
  if (!schema || schema->inputs().empty())
    return "";
  for (int i = 0; i < n.input_size(); ++i)
    for (const auto &input : model_.graph().input()) {
      if (input.name() != n.input(i) || input.type().has_tensor_type() ||
          input.type().value_case() == onnx::TypeProto::VALUE_NOT_SET)
        continue;
      const auto &formal = schema->inputs()[std::min<size_t>(
          static_cast<size_t>(i), schema->inputs().size() - 1)];
      onnx::DataType actual;
      try {
        actual = onnx::Utils::DataTypeUtils::ToType(input.type());
      } catch (const std::exception &) {
        // Found by fuzzing: ONNX names no type of some malformed protos.
        return "it reads '" + input.name() + "', of a type ONNX cannot name";
      }
      if (formal.GetTypes().count(actual))
        continue;
      std::set<std::string> kinds; // tensor, seq, map, optional
      for (onnx::DataType t : formal.GetTypes())
        kinds.insert(t->substr(0, t->find('(')));
      std::string takes;
      for (const std::string &k : kinds)
        takes += (takes.empty() ? "a " : " or a ") + k;
      return "it reads '" + input.name() + "', a " + *actual + ", where " +
             n.op_type() + " takes " + takes;
    }
  return "";
}

std::string Importer::check_kept_node(const onnx::NodeProto &n,
                                      const onnx::GraphProto &probe) {
  // What the checker leaves to shape inference, which ONNX 1.12 takes on
  // trust: window sizes it divides by, and a kernel W it indexes by the
  // rank of the data X (Conv, ConvTranspose, ConvInteger, the RNNs).
  for (const auto &a : n.attribute()) {
    const bool positive = a.name() == "strides" || a.name() == "dilations" ||
                          a.name() == "kernel_shape";
    if (!positive && a.name() != "pads" && a.name() != "output_padding")
      continue;
    for (int64_t v : a.ints())
      if (v < (positive ? 1 : 0))
        return a.name() + " must be " + (positive ? "positive" : "at least 0");
  }
  auto opsets = opset_imports();
  const auto *schema = onnx::OpSchemaRegistry::Schema(
      n.op_type(), opsets[n.domain() == "ai.onnx" ? "" : n.domain()],
      n.domain());
  if (!schema)
    return "";
  auto rank_of = [&](const std::string &formal) -> int {
    const auto &inputs = schema->inputs();
    for (size_t i = 0; i < inputs.size() && i < size_t(n.input_size()); ++i)
      if (inputs[i].GetName() == formal) {
        for (const auto &vi : probe.input())
          if (vi.name() == n.input(int(i)))
            return vi.type().tensor_type().shape().dim_size();
        for (const auto &t : probe.initializer())
          if (t.name() == n.input(int(i)))
            return t.dims_size();
      }
    return -1;
  };
  // Gemm's inference before opset 7 and its version adapters index A and B
  // as matrices unchecked (found by fuzzing: a 1-D B).
  if (n.op_type() == "Gemm")
    for (const char *m : {"A", "B"})
      if (const int r = rank_of(m); r >= 0 && r != 2)
        return std::string("its input ") + m + " has rank " +
               std::to_string(r) + " where Gemm takes a matrix";
  // LayerNormalization's inference indexes X by its axis unchecked (found by
  // fuzzing: a scalar X).
  if (n.op_type() == "LayerNormalization") {
    int64_t axis = -1;
    for (const auto &a : n.attribute())
      if (a.name() == "axis")
        axis = a.i();
    const int rank = rank_of("X");
    if (rank >= 0 && (axis < -rank || axis >= rank))
      return "axis " + std::to_string(axis) +
             " is out of range for X of rank " + std::to_string(rank);
  }
  // MaxUnpool's inference reads the channels of I, its dimension 1,
  // unchecked (found by fuzzing: a scalar I).
  if (n.op_type() == "MaxUnpool")
    if (const int r = rank_of("I"); r >= 0 && r < 2)
      return "its input I has rank " + std::to_string(r) +
             " where MaxUnpool reads its channels (dimension 1)";
  // STFT's inference reads the signal's dimensions 0 to 2 unchecked (found
  // by fuzzing: a signal of rank 1).
  if (n.op_type() == "STFT")
    if (const int r = rank_of("signal"); r >= 0 && r != 3)
      return "its input signal has rank " + std::to_string(r) +
             " where STFT takes [batch, length, 1 or 2]";
  for (const auto &[x, w] : {std::pair{"X", "W"}, std::pair{"x", "w"}})
    if (const int rx = rank_of(x), rw = rank_of(w);
        rx >= 0 && rw >= 0 && rx != rw)
      return std::string("its input ") + w + " has rank " + std::to_string(rw) +
             " where " + x + " has rank " + std::to_string(rx);
  return "";
}

namespace {

/// The operators that take quantized integers as ONNX defines them, and
/// Cast, whose cast to float32 of one is the identity.
bool reads_quantized(const std::string &op) {
  static const std::set<std::string, std::less<>> kReaders = {
      "QuantizeLinear", "DequantizeLinear", "ConvInteger", "MatMulInteger",
      "QLinearConv",    "QLinearMatMul",    "Cast",        "CastLike"};
  return kReaders.count(op) > 0;
}

} // namespace

std::string Importer::needs_keeping(
    const std::map<std::string, Handler, std::less<>> &table) const {
  const onnx::NodeProto &n = *node_;
  if (!default_domain(n.domain()))
    return "its domain '" + n.domain() + "' is not ONNX's own";
  if (!table.count(n.op_type()))
    return "quarry has no " + n.op_type();
  if (has_subgraphs(n))
    return "it holds subgraphs";
  for (const auto &name : n.input()) {
    if (undecoded_.count(name))
      return "it reads '" + name + "', a constant quarry cannot decode";
    // Integers held as float32 go where float32 arithmetic is theirs: it
    // neither wraps nor truncates a division.
    if (auto h = held_.find(name);
        h != held_.end() && h->second != onnx::TensorProto::BOOL &&
        !passes_type_through(n.op_type()) && !reads_quantized(n.op_type()))
      return "it reads '" + name + "', of element type " +
             elem_type_name(h->second) +
             ", whose arithmetic quarry does not do";
    if (auto e = elem_.find(name); e != elem_.end()) {
      const std::string type = elem_type_name(e->second);
      for (const auto &input : model_.graph().input()) {
        if (input.name() != name)
          continue;
        // A parameter of one value (a sample rate) can be fixed.
        int64_t elements = 1;
        for (const auto &d : input.type().tensor_type().shape().dim())
          elements *= d.has_dim_value() ? d.dim_value() : 2;
        return "it reads graph input '" + name + "' of element type " + type +
               (elements == 1
                    ? "; fix its value with --input-value " + name + "=..."
                    : "");
      }
      return "it reads '" + name + "' of element type " + type;
    }
  }
  return "";
}

void Importer::import_node(
    const std::map<std::string, Handler, std::less<>> &table) {
  const onnx::NodeProto &n = *node_;
  // What no valid model has, and neither handlers nor keeping can use.
  if (n.op_type().empty())
    fail("the node has no operator type");
  if (n.output_size() == 0)
    fail("the node has no outputs");
  // A later opset's node is imported as its opset-17 form, node by node.
  if (auto form = opset17_form()) {
    const size_t first = opset17_nodes_.size();
    for (onnx::NodeProto &k : *form)
      opset17_nodes_.push_back(std::move(k));
    for (size_t i = first; i < opset17_nodes_.size(); ++i) {
      node_ = &opset17_nodes_[i];
      import_node(table);
    }
    node_ = &n;
    return;
  }
  // Handlers and ONNX's shape inference take the node's form (operand
  // counts, attribute types, required attributes, subgraphs) as given.
  if (std::string why = onnx_checker_verdict(n); !why.empty())
    fail(why);
  if (std::string why = invalid_quantization(); !why.empty())
    fail(why);
  if (std::string why = non_tensor_misread(n); !why.empty())
    fail(why);
  if (reads_untyped()) {
    if (std::string why =
            add_to_tail(""); // the message says its shapes are not fixed
        !why.empty())
      fail("quarry keeps this node as it is (it reads a value whose shape is "
           "not fixed), but cannot: " +
           why);
    return;
  }
  if (default_domain(n.domain()) && !has_subgraphs(n) && fold_node(*this)) {
    note_folded(n);
    return; // every input known: evaluated now (onnx_fold.h)
  }
  if (default_domain(n.domain()) && n.op_type() == "If" && const_in(0))
    return inline_branch(table);
  if (default_domain(n.domain()) && n.op_type() == "If" &&
      lower_branches(table))
    return;
  if (default_domain(n.domain()) &&
      ((n.op_type() == "Loop" && unroll_loop(table)) ||
       (n.op_type() == "Scan" && unroll_scan(table))))
    return;
  const std::string why = needs_keeping(table);
  if (!why.empty()) {
    const std::string failed = keep_node(why);
    if (!failed.empty())
      fail("quarry keeps this node as it is (" + why +
           "), but cannot type its outputs: " + failed);
    return;
  }
  const int before = g_.num_nodes();
  try {
    table.find(n.op_type())->second(*this);
    propagate_held();
  } catch (const Error &refused) {
    // The handler cannot express this use of the operator (an attribute
    // value, a computed operand it needs constant): keep the node when ONNX
    // can type it, else the handler's reason stands.
    roll_back(before);
    if (!keep_node(reason_of(refused)).empty())
      throw;
  }
}

void Importer::roll_back(int num_nodes) {
  for (int32_t id = num_nodes; id < g_.num_nodes(); ++id)
    if (g_.node(id).kind == OpKind::Weight)
      weights_.erase(g_.node(id).name);
  for (auto it = values_.begin(); it != values_.end();)
    it = it->second.node >= num_nodes ? values_.erase(it) : std::next(it);
  for (const auto &name : node_->output())
    constants_.erase(name);
  g_.truncate(num_nodes);
}

std::string Importer::keep_node(const std::string &because) {
  const onnx::NodeProto &n = *node_;
  const std::vector<std::string> reads = names_read(n);

  onnx::ModelProto probe;
  // Before IR 4 inference types only graph inputs, and an initializer had
  // to be one; the probe lists the constants as initializers alone.
  probe.set_ir_version(std::max<int64_t>(model_.ir_version(), 4));
  *probe.mutable_opset_import() = model_.opset_import();
  onnx::GraphProto *pg = probe.mutable_graph();
  pg->set_name("probe");
  std::vector<onnx::TensorProto> constants;
  std::vector<ValueRef> operands;
  onnx::NodeProto kept = n;
  onnx::AttributeProto *reads_attr = kept.add_attribute();
  reads_attr->set_name(kReadsAttr);
  reads_attr->set_type(onnx::AttributeProto::STRINGS);
  for (const auto &name : reads) {
    if (auto v = values_.find(name); v != values_.end()) {
      const auto held = held_.find(name);
      operands.push_back(held != held_.end() ? onnx_typed(name) : v->second);
      reads_attr->add_strings(name);
      auto *vi = pg->add_input();
      vi->set_name(name);
      auto *tt = vi->mutable_type()->mutable_tensor_type();
      auto e = elem_.find(name);
      tt->set_elem_type(held != held_.end() ? held->second
                        : e == elem_.end()  ? onnx::TensorProto::FLOAT
                                            : e->second);
      auto *shape = tt->mutable_shape();
      for (int64_t d : g_.type(v->second)->shape.dims)
        shape->add_dim()->set_dim_value(d);
    } else {
      try {
        if (!kept_constant(name, constants))
          return "it reads '" + name + "', which no earlier node defines";
      } catch (const Error &e) {
        return e.what();
      }
    }
  }
  for (const auto &t : constants)
    *pg->add_initializer() = t;
  *pg->add_node() = n;
  if (std::string why = check_kept_node(n, *pg); !why.empty())
    return why;
  try {
    onnx::shape_inference::InferShapes(
        probe, onnx::OpSchemaRegistry::Instance(),
        onnx::ShapeInferenceOptions(/*check_type=*/true, /*error_mode=*/1,
                                    /*data_prop=*/true));
  } catch (const std::exception &e) {
    return std::string("ONNX shape inference: ") + e.what();
  }

  // Outputs typed by inference, or else by the model's own value_info.
  auto find_type = [&](const std::string &name, int32_t &elem, Shape &shape) {
    for (const auto &vi : pg->value_info())
      if (vi.name() == name && static_tensor_type(vi.type(), elem, shape))
        return true;
    for (const auto *list :
         {&model_.graph().value_info(), &model_.graph().output()})
      for (const auto &vi : *list)
        if (vi.name() == name && static_tensor_type(vi.type(), elem, shape))
          return true;
    return false;
  };
  std::vector<Shape> shapes;
  std::vector<int64_t> types;
  std::vector<std::string> outputs;
  for (const auto &name : n.output()) {
    if (name.empty())
      continue; // an optional output not asked for
    int32_t elem = 0;
    Shape shape;
    if (!find_type(name, elem, shape)) {
      // A negative extent is a malformed node (a window past its input),
      // not one whose shape depends on the values.
      for (const auto &vi : pg->value_info())
        if (vi.name() == name && vi.type().has_tensor_type())
          for (const auto &d : vi.type().tensor_type().shape().dim())
            if (d.has_dim_value() && d.dim_value() < 0)
              return "ONNX shape inference gives output '" + name +
                     "' the extent " + std::to_string(d.dim_value());
      // Neither inference nor the model fixes it.
      return add_to_tail(because);
    }
    shapes.push_back(std::move(shape));
    types.push_back(elem);
    outputs.push_back(name);
  }
  if (outputs.empty())
    return "it has no outputs";

  const int64_t id = kept_.graph().node_size();
  Attrs attrs = make_attrs(OpKind::Opaque,
                           {{"id", id},
                            {"shapes", ops::Opaque::encode_shapes(shapes)},
                            {"types", types}});
  std::vector<ValueRef> results;
  try {
    results = g_.add(OpKind::Opaque, std::move(attrs), std::move(operands),
                     fresh_name(n.name().empty() ? outputs[0] : n.name()));
  } catch (const Error &e) {
    return e.what();
  }
  add_attr(kept, kKeptBecauseAttr, because);
  *kept_.mutable_graph()->add_node() = std::move(kept);
  for (auto &t : constants)
    if (kept_constants_.insert(t.name()).second)
      *kept_.mutable_graph()->add_initializer() = std::move(t);
  for (size_t k = 0; k < outputs.size(); ++k) {
    values_[outputs[k]] = results[k];
    constants_.erase(outputs[k]);
    if (types[k] != onnx::TensorProto::FLOAT)
      elem_[outputs[k]] = static_cast<int32_t>(types[k]);
  }
  return "";
}

ValueRef Importer::onnx_typed(const std::string &name) {
  if (auto it = held_casts_.find(name); it != held_casts_.end())
    return it->second;
  const ValueRef v = values_.at(name);
  const int32_t elem = held_.at(name);
  const std::string type = elem_type_name(elem);
  std::string lower;
  for (char c : type)
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string cast_name = name + "_as_" + lower;
  onnx::NodeProto cast;
  cast.set_op_type("Cast");
  cast.set_name(cast_name);
  cast.add_input(name);
  cast.add_output(cast_name);
  add_attr(cast, "to", int64_t{elem});
  add_attr(cast, kReadsAttr, std::vector<std::string>{name});
  add_attr(cast, kKeptBecauseAttr,
           "'" + name + "' is a " + lower +
               " held as float32, which a kept node reads as ONNX's " + lower);
  const int64_t id = kept_.graph().node_size();
  const ValueRef b =
      g_.add(OpKind::Opaque,
             make_attrs(OpKind::Opaque,
                        {{"id", id},
                         {"shapes", ops::Opaque::encode_shapes({shape(v)})},
                         {"types", std::vector<int64_t>{elem}}}),
             {v}, fresh_name(cast_name))
          .at(0);
  *kept_.mutable_graph()->add_node() = std::move(cast);
  held_casts_.emplace(name, b);
  return b;
}

bool Importer::kept_constant(const std::string &name,
                             std::vector<onnx::TensorProto> &out,
                             bool own_type) const {
  if (const onnx::TensorProto *t = constants_.initializer(name);
      t && (own_type || !held_as_float(t->data_type())))
    out.push_back(*t); // an initializer as it was
  else if (const Constant *c = constants_.find(name)) {
    // float16 and bfloat16 are float32 to quarry, its kept nodes included.
    Constant as_held = *c;
    if (!own_type && held_as_float(as_held.elem))
      as_held.elem = onnx::TensorProto::FLOAT;
    out.push_back(encode_constant(name, as_held));
  } else if (auto u = undecoded_.find(name); u != undecoded_.end())
    out.push_back(*u->second);
  else
    return false;
  return true;
}

bool Importer::reads_untyped() const {
  for (const auto &name : names_read(*node_))
    if (untyped_.count(name))
      return true;
  return false;
}

onnx::FunctionProto &Importer::kept_function(const char *name) {
  for (auto &f : *kept_.mutable_functions())
    if (f.name() == name && f.domain() == kRecordDomain)
      return f;
  onnx::FunctionProto *f = kept_.add_functions();
  f->set_name(name);
  f->set_domain(kRecordDomain);
  return *f;
}

onnx::FunctionProto &Importer::tail() { return kept_function(kTailFunction); }

std::string Importer::add_to_tail(const std::string &because) {
  const onnx::NodeProto &n = *node_;
  std::vector<onnx::TensorProto> constants;
  std::vector<std::pair<std::string, ValueRef>> from_graph;
  for (const auto &name : names_read(n)) {
    if (untyped_.count(name))
      continue;
    try {
      if (kept_constant(name, constants))
        continue;
    } catch (const Error &e) {
      return e.what();
    }
    auto v = values_.find(name);
    if (v == values_.end())
      return "it reads '" + name + "', which no earlier node defines";
    from_graph.emplace_back(name,
                            held_.count(name) ? onnx_typed(name) : v->second);
  }
  onnx::FunctionProto &f = tail();
  for (auto &t : constants)
    if (kept_constants_.insert(t.name()).second)
      *kept_.mutable_graph()->add_initializer() = std::move(t);
  for (const auto &[name, v] : from_graph)
    if (std::find(f.input().begin(), f.input().end(), name) ==
        f.input().end()) {
      f.add_input(name);
      tail_reads_.push_back(v);
    }
  if (f.node_size() == 0)
    f.set_doc_string(because);
  *f.add_node() = n;
  for (const auto &name : n.output())
    if (!name.empty()) {
      untyped_.insert(name);
      values_.erase(name);
      constants_.erase(name);
    }
  return "";
}

} // namespace quarry::onnx_io
