//===- onnx_export_kept.cc - The nodes kept from an imported model --------===//
//
// Opaque operators go out as the ONNX nodes they were imported from, with
// the constants they read, converted to the export's opset where their
// operator changed; the untyped tail likewise.
//
//===----------------------------------------------------------------------===//
#include "onnx_exporter.h"

namespace quarry::onnx_io {

int64_t Exporter::prepare_kept(const std::vector<bool> &live, int64_t least) {
  const int64_t source = source_opset() > 0 ? source_opset() : least;
  const int64_t opset = std::max(source, least);
  source_opset_ = source;
  export_opset_ = opset;
  for (const auto &t : kept_.graph().initializer())
    reserved_.insert(t.name());
  bool any = false;
  for (int32_t id = 0; id < g_.num_nodes(); ++id) {
    const Node &n = g_.node(id);
    if (!live[id] || n.kind != OpKind::Opaque)
      continue;
    any = true;
    const onnx::NodeProto &k = kept_node(n);
    if (const std::string c = onnx_io::changed_operator(k, source, opset);
        !c.empty())
      converted_.emplace(id, convert_kept(id, c, source, opset));
    onnx_io::names_defined_inside(k, reserved_);
    const std::vector<std::string> reads = reads_of(k);
    for (const std::string &outer : onnx_io::outer_references(k)) {
      reserved_.insert(outer);
      for (size_t i = 0; i < reads.size(); ++i)
        if (reads[i] == outer)
          outer_binding_.emplace(outer, n.inputs.at(i));
    }
  }
  if (tail_) {
    any = true;
    for (const auto &k : tail_->node()) {
      if (tail_changed_.empty())
        tail_changed_ = onnx_io::changed_operator(k, source, opset);
      onnx_io::names_defined_inside(k, reserved_);
      for (const auto &name : k.output())
        reserved_.insert(name);
      for (const auto &outer : onnx_io::outer_references(k))
        reserved_.insert(outer);
    }
    // A graph input the tail reads keeps its name when it can.
    const size_t first = g_.outputs().size() - tail_->input_size();
    for (int k = 0; k < tail_->input_size(); ++k) {
      reserved_.insert(tail_->input(k));
      outer_binding_.emplace(tail_->input(k), g_.outputs()[first + k]);
    }
    for (const auto &vi : kept_.graph().value_info())
      reserved_.insert(vi.name());
  }
  // A prefix for quarry's names that starts no kept name, and that no
  // variable's name is followed by a number (an initializer named t36
  // of a model quarry wrote).
  auto clashes = [&] {
    for (const auto &r : reserved_)
      if (r.compare(0, prefix_.size(), prefix_) == 0)
        return true;
    for (const Node &n : g_.nodes())
      if (n.is_variable() && n.name.size() > prefix_.size() &&
          n.name.compare(0, prefix_.size(), prefix_) == 0 &&
          n.name.find_first_not_of("0123456789_", prefix_.size()) ==
              std::string::npos)
        return true;
    return false;
  };
  while (clashes())
    prefix_ += "q";
  if (any)
    for (const auto &t : kept_.graph().initializer())
      if (written_constants_.insert(t.name()).second)
        *graph_->add_initializer() = t;
  // Without kept nodes the imported model's opset still stands where it
  // is later than quarry's nodes need: they mean the same up to 17.
  return opset;
}

const onnx::NodeProto &Exporter::kept_node(const Node &n) const {
  const int64_t id = n.attrs.i(ops::Opaque::kId);
  if (id < 0 || id >= kept_.graph().node_size())
    throw Error("export: opaque operator #" + std::to_string(id) +
                " has no kept node (the model's kept nodes are missing)");
  return kept_.graph().node(static_cast<int>(id));
}

std::vector<std::string> Exporter::reads_of(const onnx::NodeProto &k) {
  for (const auto &a : k.attribute())
    if (a.name() == onnx_io::kReadsAttr)
      return {a.strings().begin(), a.strings().end()};
  return {};
}

onnx::GraphProto Exporter::convert(onnx::ModelProto probe,
                                   const std::string &what,
                                   const std::string &changed, int64_t from,
                                   int64_t opset) const {
  probe.set_ir_version(std::max<int64_t>(kept_.ir_version(), 4));
  *probe.mutable_opset_import() = kept_.opset_import();
  probe.mutable_graph()->set_name("kept");
  auto refuse = [&](const std::string &why) {
    return Error("export: " + what + " uses " + changed + " of opset " +
                 std::to_string(from) + ", which changed by opset " +
                 std::to_string(opset) +
                 ", and ONNX's version converter cannot convert it: " +
                 why.substr(0, why.find('\n')));
  };
  onnx::GraphProto converted;
  try {
    converted =
        onnx::version_conversion::ConvertVersion(probe, static_cast<int>(opset))
            .graph();
  } catch (const std::exception &e) {
    throw refuse(e.what());
  }
  // Some adapters rewrite the graph's interface instead (Scan 8 to 9
  // drops the batch axis of the inputs): the node alone is not converted.
  auto same = [](const auto &a, const auto &b) {
    if (a.size() != b.size())
      return false;
    for (int i = 0; i < a.size(); ++i)
      if (a.Get(i).SerializeAsString() != b.Get(i).SerializeAsString())
        return false;
    return true;
  };
  if (!same(converted.input(), probe.graph().input()) ||
      !same(converted.output(), probe.graph().output()))
    throw refuse("it changes the types of what the nodes read or compute");
  return converted;
}

void Exporter::add_kept_constants(const onnx::NodeProto &k,
                                  onnx::GraphProto &g) const {
  const std::vector<std::string> names = onnx_io::names_read(k);
  const std::set<std::string> reads(names.begin(), names.end());
  std::set<std::string> have;
  for (const auto &t : g.initializer())
    have.insert(t.name());
  for (const auto &t : kept_.graph().initializer())
    if (reads.count(t.name()) && have.insert(t.name()).second)
      *g.add_initializer() = t;
}

onnx::GraphProto Exporter::convert_kept(int32_t id, const std::string &changed,
                                        int64_t from, int64_t opset) const {
  const Node &n = g_.node(id);
  const onnx::NodeProto &k = kept_node(n);
  onnx::ModelProto probe;
  onnx::GraphProto *g = probe.mutable_graph();
  const std::vector<std::string> reads = reads_of(k);
  for (size_t i = 0; i < reads.size() && i < n.inputs.size(); ++i)
    add_value_info(g->add_input(), reads[i], *g_.type(n.inputs[i]),
                   elem(n.inputs[i]));
  add_kept_constants(k, *g);
  onnx::NodeProto *node = g->add_node();
  *node = k;
  drop_quarry_attrs(*node);
  int out = 0;
  for (const auto &o : k.output())
    if (!o.empty()) {
      const ValueRef v{id, out++};
      add_value_info(g->add_output(), o, *g_.type(v), elem(v));
    }
  const std::string what = "kept node '" +
                           (k.name().empty() ? k.output(0) : k.name()) + "' (" +
                           k.op_type() + ")";
  return convert(std::move(probe), what, changed, from, opset);
}

void Exporter::emit_converted(const onnx::GraphProto &converted,
                              std::map<std::string, std::string> rename,
                              const std::string &tag) {
  std::set<std::string> kept_constants;
  for (const auto &t : kept_.graph().initializer())
    kept_constants.insert(t.name());
  auto mapped = [&](const std::string &name) -> std::string {
    if (auto it = rename.find(name); it != rename.end())
      return it->second;
    if (name.empty() || kept_constants.count(name) || reserved_.count(name))
      return name;
    return rename.emplace(name, prefix_ + tag + "_" + name).first->second;
  };
  for (const auto &t : converted.initializer())
    if (!kept_constants.count(t.name())) {
      onnx::TensorProto c = t;
      c.set_name(mapped(t.name()));
      *graph_->add_initializer() = std::move(c);
    }
  for (const auto &in : converted.node()) {
    onnx::NodeProto k = in;
    for (auto &i : *k.mutable_input())
      i = mapped(i);
    for (auto &o : *k.mutable_output())
      o = mapped(o);
    *graph_->add_node() = std::move(k);
  }
}

std::optional<ValueRef> Exporter::cast_to_its_own_type(int32_t id) const {
  const Node &n = g_.node(id);
  if (n.kind != OpKind::Opaque || n.inputs.size() != 1)
    return std::nullopt;
  const onnx::NodeProto &k = kept_node(n);
  const auto typed = typed_.find(n.inputs[0]);
  const onnx::AttributeProto *to = find_attr(k, "to");
  if (k.op_type() != "Cast" || !k.domain().empty() || typed == typed_.end() ||
      !to || to->i() != typed->second)
    return std::nullopt;
  return n.inputs[0];
}

void Exporter::emit_kept(int32_t id) {
  if (const std::optional<ValueRef> same = cast_to_its_own_type(id)) {
    same_as_.emplace(ValueRef{id, 0}, *same);
    return;
  }
  const Node &n = g_.node(id);
  onnx::NodeProto k = kept_node(n);
  const std::vector<std::string> reads = reads_of(k);
  if (reads.size() != n.inputs.size())
    throw Error("export: opaque operator #" +
                std::to_string(n.attrs.i(ops::Opaque::kId)) + " reads " +
                std::to_string(n.inputs.size()) +
                " values but its kept node names " +
                std::to_string(reads.size()));
  auto exported = [&](const std::string &original) -> std::string {
    for (size_t i = 0; i < reads.size(); ++i)
      if (reads[i] == original)
        return in(n, static_cast<int>(i));
    return original; // a kept constant
  };
  for (const std::string &outer : onnx_io::outer_references(k)) {
    const std::string from = exported(outer);
    if (from != outer && defined_outer_.insert(outer).second)
      node("Identity", {from}, {outer});
  }
  drop_quarry_attrs(k);
  if (auto c = converted_.find(id); c != converted_.end()) {
    std::map<std::string, std::string> rename;
    for (size_t i = 0; i < reads.size(); ++i)
      rename[reads[i]] = in(n, static_cast<int>(i));
    int out = 0;
    for (const auto &o : k.output())
      if (!o.empty())
        rename[o] = name({id, out++});
    return emit_converted(c->second, std::move(rename),
                          std::to_string(id) + "k");
  }
  for (auto &input : *k.mutable_input())
    if (!input.empty())
      input = exported(input);
  int out = 0;
  for (auto &output : *k.mutable_output())
    if (!output.empty())
      output = name({id, out++});
  *graph_->add_node() = std::move(k);
}

void Exporter::emit_tail() {
  const size_t first = g_.outputs().size() - tail_->input_size();
  for (int k = 0; k < tail_->input_size(); ++k) {
    const std::string from = name(g_.outputs()[first + k]);
    if (from != tail_->input(k) &&
        defined_outer_.insert(tail_->input(k)).second)
      node("Identity", {from}, {tail_->input(k)});
  }
  if (tail_changed_.empty())
    for (const auto &n : tail_->node())
      *graph_->add_node() = n;
  else
    emit_converted(convert_tail(first), {}, "tail");
  for (const auto &vi : kept_.graph().value_info())
    *graph_->add_input() = vi;
}

onnx::GraphProto Exporter::convert_tail(size_t first) const {
  onnx::ModelProto probe;
  onnx::GraphProto *g = probe.mutable_graph();
  for (int k = 0; k < tail_->input_size(); ++k) {
    const ValueRef v = g_.outputs()[first + static_cast<size_t>(k)];
    add_value_info(g->add_input(), tail_->input(k), *g_.type(v), elem(v));
  }
  for (const auto &vi : kept_.graph().value_info())
    *g->add_input() = vi;
  for (const auto &n : tail_->node()) {
    add_kept_constants(n, *g);
    *g->add_node() = n;
  }
  const std::set<std::string> from_tail(tail_->output().begin(),
                                        tail_->output().end());
  for (const auto &vi : kept_.graph().output())
    if (from_tail.count(vi.name()))
      *g->add_output() = vi;
  return convert(std::move(probe), "the untyped tail", tail_changed_,
                 source_opset_, export_opset_);
}

} // namespace quarry::onnx_io
