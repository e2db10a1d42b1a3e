//===- onnx_export.cc - Writing a quarry Model as ONNX --------------------===//
//
// The model's interface (inputs and outputs under their imported names and
// types), its weights as initializers, the opset, then every live node in
// order (onnx_export_nodes.cc, onnx_export_kept.cc). Constants of the
// algebra (const_pool, ...) are evaluated and written as initializers. The
// result passes onnx::checker.
//
//===----------------------------------------------------------------------===//
#include "onnx_exporter.h"

#include "onnx_export_branches.h"

#include <algorithm>

namespace quarry::onnx_io {

Exporter::Exporter(const Model &m, uint64_t seed)
    : g_(m.graph), values_(bind_variables(g_, m.weights, seed)) {
  if (!m.kept_onnx.empty())
    kept_ = onnx_io::parse_kept(m.kept_onnx, "the model's kept nodes");
  for (const auto &vi : kept_.graph().input())
    input_elem_[vi.name()] = vi.type().tensor_type().elem_type();
  for (const auto &t : kept_.graph().initializer())
    kept_constants_.emplace(t.name(), &t);
  if (const onnx::FunctionProto *f =
          onnx_io::quarry_record(kept_, kFoldedWeightsFunction)) {
    for (const auto &r : f->node()) {
      if (const auto *w = find_attr(r, kResultsAttr); w && w->strings_size())
        folded_weights_.emplace(w->strings(0), &r);
      else if (r.output_size() == 1)
        folded_constants_.emplace(r.output(0), &r);
    }
  }
  // A weight made of a float16 constant goes out as one while its values
  // are still float16 (the optimizer's new weights are float32).
  for (const Node &n : g_.nodes()) {
    auto e = input_elem_.find(n.name);
    if (n.kind != OpKind::Weight || e == input_elem_.end())
      continue;
    const Tensor<float> &w = values_.at(n.name);
    if (!std::all_of(w.data.begin(), w.data.end(), [&](float v) {
          return onnx_io::round_to(e->second, v) == v || std::isnan(v);
        }))
      input_elem_.erase(e);
  }
  tail_ = onnx_io::untyped_tail(kept_);
  if (tail_ && static_cast<size_t>(tail_->input_size()) > g_.outputs().size())
    throw Error("export: the untyped tail reads " +
                std::to_string(tail_->input_size()) +
                " values but the graph has " +
                std::to_string(g_.outputs().size()) + " outputs");
}

onnx::ModelProto Exporter::run() {
  onnx::ModelProto model;
  // Kept nodes may use types of a later IR (optionals: 8).
  model.set_ir_version(std::max<int64_t>(7, kept_.ir_version()));
  model.set_producer_name("quarry");
  graph_ = model.mutable_graph();
  graph_->set_name("quarry");
  const auto live = choose_restored(g_.live_nodes());
  // The names of the nodes written back and of their values are the
  // model's: quarry's own names keep clear of them (prepare_kept's prefix).
  std::set<int32_t> restored_nodes;
  for (const auto &[at, r] : restored_) {
    restored_nodes.insert(r.nodes.begin(), r.nodes.end());
    for (const std::string &name : r.record->output())
      if (!name.empty())
        reserved_.insert(name);
    if (!r.record->name().empty())
      reserved_.insert(r.record->name());
  }
  for (const auto *folded : {&folded_weights_, &folded_constants_})
    for (const auto &[value, r] : *folded)
      if (!r->name().empty())
        reserved_.insert(r->name());
  fusions_ = onnx_io::find_export_fusions(g_, restored_nodes);
  const int64_t opset = prepare_kept(live, least_opset(live));
  auto *op = model.add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  for (const auto &other : kept_.opset_import())
    if (!onnx_io::default_domain(other.domain()))
      *model.add_opset_import() = other;
  // The model's local functions, which its kept nodes may call.
  for (const auto &f : kept_.functions())
    if (f.domain() != onnx_io::kRecordDomain)
      *model.add_functions() = f;
  // Every graph input, read or not: an application feeds them all.
  for (int32_t id = 0; id < g_.num_nodes(); ++id)
    if (live[id] || g_.node(id).kind == OpKind::Input)
      emit(id);
  if (tail_)
    emit_tail();
  emit_outputs();
  // The nodes weights folded from first, as they read constants alone: a
  // node in quarry's forms emitted before a weight (a Conv before its bias)
  // reads it.
  if (!folded_nodes_.empty()) {
    folded_nodes_.MergeFrom(graph_->node());
    graph_->mutable_node()->Swap(&folded_nodes_);
  }
  onnx_io::elide_naming_identities(*graph_, defined_outer_);
  restore_names();
  onnx_io::restore_interface(model, kept_, prefix_);
  try {
    // An interface the model declared without shapes (a detector's boxes,
    // which ONNX Runtime accepts) goes out as declared; the checker, which
    // wants a shape on each, checks a copy that has them.
    onnx::ModelProto checked = model;
    // The checker refuses an IR later than its own; the forms it checks
    // here are opset 17's, which its IR holds.
    checked.set_ir_version(
        std::min<int64_t>(checked.ir_version(), onnx::Version::IR_VERSION));
    for (auto *values : {checked.mutable_graph()->mutable_input(),
                         checked.mutable_graph()->mutable_output()})
      for (auto &v : *values)
        if (v.type().has_tensor_type() && !v.type().tensor_type().has_shape())
          v.mutable_type()->mutable_tensor_type()->mutable_shape();
    onnx_io::declare_late_forms(checked);
    onnx::checker::check_model(checked);
  } catch (const std::exception &e) {
    throw Error(std::string("export: the ONNX checker rejects the model: ") +
                e.what());
  }
  // Back to the imported model's opset where every node can be written
  // there, in that opset's forms (onnx_old_forms.h).
  if (source_opset_ > 0 && source_opset_ < opset)
    onnx_io::lower_opset(model, source_opset_,
                         onnx_io::imported_operators(kept_));
  // After the checker, which knows opset 17's forms: a later opset's
  // nodes in their own forms (onnx_late_opsets.h).
  onnx_io::raise_from_opset17(*model.mutable_graph(), opset);
  // An If import wrote as both branches and Wheres is an If again, so that
  // an engine computes only the branch taken.
  onnx_io::wheres_as_ifs(model);
  onnx_io::release_late_forms(*model.mutable_graph());
  return model;
}

std::string Exporter::name(ValueRef v) const {
  if (auto same = same_as_.find(v); same != same_as_.end())
    return typed_name(same->second);
  const Node &n = g_.node(v.node);
  if (n.is_variable())
    return variable_name(v) + (cast_variable(n) ? "_float" : "");
  return typed_name(v) + (read_as_float_.count(v) ? "_float" : "");
}

std::string Exporter::typed_name(ValueRef v) const {
  if (auto same = same_as_.find(v); same != same_as_.end())
    return typed_name(same->second);
  const Node &n = g_.node(v.node);
  if (n.is_variable())
    return name(v);
  return prefix_ + std::to_string(v.node) +
         (n.num_outputs > 1 ? "_" + std::to_string(v.output) : "");
}

std::string Exporter::variable_name(ValueRef v) const {
  const Node &n = g_.node(v.node);
  auto bound = outer_binding_.find(n.name);
  if (!reserved_.count(n.name) ||
      (bound != outer_binding_.end() && bound->second == v))
    return n.name;
  return prefix_ + "_" + n.name;
}

bool Exporter::cast_variable(const Node &n) const {
  auto it = input_elem_.find(n.name);
  if (!n.is_variable() || it == input_elem_.end())
    return false;
  return onnx_io::held_exactly(it->second)
             ? n.kind == OpKind::Input
             : it->second != onnx::TensorProto::FLOAT &&
                   onnx_io::held_as_float(it->second);
}

int32_t Exporter::elem(ValueRef v) const {
  if (auto t = typed_.find(v); t != typed_.end())
    return t->second;
  const Node &n = g_.node(v.node);
  if (n.kind == OpKind::Opaque)
    return static_cast<int32_t>(n.attrs.list(ops::Opaque::kTypes).at(v.output));
  if (n.kind == OpKind::Input && !cast_variable(n))
    if (auto it = input_elem_.find(n.name); it != input_elem_.end())
      return it->second;
  return onnx::TensorProto::FLOAT;
}

void Exporter::add_value_info(onnx::ValueInfoProto *vi, const std::string &nm,
                              const TensorType &t, int32_t elem) {
  vi->set_name(nm);
  auto *tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem);
  auto *shape = tt->mutable_shape();
  for (int64_t d : t.shape.dims)
    shape->add_dim()->set_dim_value(d);
}

onnx::NodeProto *Exporter::node(const std::string &type,
                                std::vector<std::string> in,
                                std::vector<std::string> out) {
  auto *n = graph_->add_node();
  n->set_op_type(type);
  n->set_name(out.at(0));
  for (auto &i : in)
    n->add_input(i);
  for (auto &o : out)
    n->add_output(o);
  return n;
}

std::string Exporter::derived(const std::string &base,
                              const std::string &suffix) {
  const std::string name = base + suffix;
  derived_.emplace(name, std::make_pair(base, suffix));
  return name;
}

std::string Exporter::ints(const std::string &hint, const Ints &v) {
  *graph_->add_initializer() = onnx_io::encode_ints(hint, v);
  return hint;
}

std::string Exporter::scalar(const std::string &hint, float v) {
  *graph_->add_initializer() =
      onnx_io::encode_tensor(hint, Tensor<float>(Shape{}, v));
  return hint;
}

void Exporter::restore_names() {
  const onnx::FunctionProto *record = onnx_io::names_record(kept_);
  if (!record)
    return;
  std::map<std::string, const onnx::NodeProto *> by_quarry;
  for (const auto &r : record->node())
    if (r.input_size() == 1)
      by_quarry.emplace(r.input(0), &r);
  std::map<std::string, std::string> values, nodes;
  for (int32_t id = 0; id < g_.num_nodes(); ++id) {
    const Node &n = g_.node(id);
    auto r = by_quarry.find(n.name);
    if (n.name.empty() || r == by_quarry.end() || n.kind == OpKind::Opaque ||
        n.kind == OpKind::Input)
      continue;
    const onnx::NodeProto &names = *r->second;
    if (n.kind == OpKind::Weight) {
      // Under its ONNX name only where it is written as the model had it
      // (a Conv's bias is [C] there, [C,1,1] to quarry).
      Ints dims = n.types.at(0).shape.dims;
      if (fusions_.conv_bias_weights.count(id))
        dims.resize(1);
      if (auto d = weight_dims_.find(id); d != weight_dims_.end())
        dims = d->second;
      for (const auto &a : names.attribute())
        if (a.name() == "dims" &&
            Ints(a.ints().begin(), a.ints().end()) == dims)
          values.emplace(variable_name({id, 0}), names.output(0));
      continue;
    }
    if (names.output_size() != n.num_outputs)
      continue;
    // A result written in the model's type has its name; its float32
    // copy, if any, follows (derived_).
    for (int k = 0; k < n.num_outputs; ++k)
      values.emplace(typed_name({id, k}), names.output(k));
    if (!names.name().empty())
      nodes.emplace(names.output(0), names.name());
  }
  onnx_io::restore_names(*graph_, values, nodes, derived_);
}

std::string Exporter::before_activation(int64_t act, const std::string &out,
                                        const char *suffix) {
  return act ? out + suffix : out;
}

void Exporter::activation(int64_t act, const std::string &pre,
                          const std::string &out) {
  static const char *const names[] = {"Identity", "Relu", "Sigmoid", "Tanh"};
  if (act)
    node(names[act], {pre}, {out});
}

Ints Exporter::algebra_pads(const Node &n, size_t stride_at, size_t pad_at,
                            const Shape &x, const Ints &k) const {
  if (static_cast<Padding>(n.attrs.i(pad_at)) == Padding::Valid)
    return {0, 0, 0, 0};
  const Ints &s = n.attrs.list(stride_at);
  Ints p(4);
  for (int i = 0; i < 2; ++i) {
    const int64_t in = x[2 + i], out = (in + s[i] - 1) / s[i];
    p[i] = (k[i] - 1) / 2;
    p[i + 2] = std::max<int64_t>(0, (out - 1) * s[i] + k[i] - in - p[i]);
  }
  return p;
}

int64_t Exporter::least_opset(const std::vector<bool> &live) const {
  int64_t least = 0;
  bool cast = false, kept = false;
  for (int32_t id = 0; id < g_.num_nodes(); ++id) {
    const Node &n = g_.node(id);
    if (!live[id] || restored_.count(id)) {
      continue;
    } else if (n.kind == OpKind::Opaque) {
      // A kept node goes out at any opset (prepare_kept converts it); a
      // Cast import put before one needs Cast's form of opset 6.
      kept = true;
      cast = cast || kept_node(n).op_type() == "Cast";
    } else if (n.is_variable()) {
      cast = cast || (cast_variable(n) && !raw_only_.count(id));
    } else if (n.kind == OpKind::GridSample) {
      least = std::max<int64_t>(least, 16);
    } else if (n.kind == OpKind::LayerNorm) {
      least = 17;
    } else {
      least = std::max(least, kOpset);
    }
  }
  if (least > 0 || (restored_.empty() && !kept) || source_opset() == 0)
    return std::max(least, kOpset);
  // Only recorded and kept nodes: the model's opset, and Cast's form of opset 6
  // where an input or output is cast (emit_outputs), or a float16 value
  // where it meets float32 (emit_restored).
  for (const auto &[v, declared] : declared_outputs())
    cast = cast || (elem(v) == onnx::TensorProto::FLOAT && castable(declared));
  cast = cast || !read_as_float_.empty();
  for (const auto &[at, r] : restored_)
    for (size_t i = 0; i < r.operands.size(); ++i)
      cast = cast || (r.types[i] && !r.raw[i] && r.operands[i].node >= 0 &&
                      !typed_.count(r.operands[i]));
  return cast ? 6 : 1;
}

std::vector<std::pair<ValueRef, int32_t>> Exporter::declared_outputs() const {
  std::vector<std::pair<ValueRef, int32_t>> out;
  const size_t first = g_.outputs().size() -
                       (tail_ ? static_cast<size_t>(tail_->input_size()) : 0);
  std::set<std::string> from_tail;
  if (tail_)
    from_tail.insert(tail_->output().begin(), tail_->output().end());
  size_t next = 0;
  for (const auto &vi : kept_.graph().output())
    if (!from_tail.count(vi.name()) && next < first)
      out.emplace_back(g_.outputs()[next++],
                       vi.type().tensor_type().elem_type());
  return out;
}

void Exporter::emit_outputs() {
  if (kept_.graph().output_size() == 0) {
    for (ValueRef v : g_.outputs())
      add_value_info(graph_->add_output(), name(v), *g_.type(v), elem(v));
    return;
  }
  const size_t first = g_.outputs().size() - (tail_ ? tail_->input_size() : 0);
  std::set<std::string> from_tail;
  if (tail_)
    from_tail.insert(tail_->output().begin(), tail_->output().end());
  size_t next = 0;
  for (const auto &vi : kept_.graph().output()) {
    if (from_tail.count(vi.name())) {
      *graph_->add_output() = vi;
      continue;
    }
    if (next == first)
      throw Error("export: the model has more outputs outside its untyped "
                  "tail than the graph computes (" +
                  std::to_string(first) + ")");
    const ValueRef v = g_.outputs()[next++];
    const int32_t declared = vi.type().tensor_type().elem_type();
    // A float16 result declared so goes out as computed; one declared
    // otherwise, as its float32 copy.
    const bool typed = elem(v) == declared || !read_as_float_.count(v);
    std::string out = typed ? typed_name(v) : name(v);
    const int32_t out_elem = typed ? elem(v) : onnx::TensorProto::FLOAT;
    if (out_elem == onnx::TensorProto::FLOAT && castable(declared)) {
      const std::string cast = derived(out, "_out" + std::to_string(next - 1));
      attr(node("Cast", {out}, {cast}), "to", int64_t{declared});
      out = cast;
    }
    add_value_info(graph_->add_output(), out, *g_.type(v),
                   out == name(v) || out == typed_name(v) ? out_elem
                                                          : declared);
  }
  if (next != first)
    throw Error("export: the graph computes " + std::to_string(first) +
                " of the model's outputs, but it names " +
                std::to_string(next));
}

bool Exporter::castable(int32_t declared) {
  using TP = onnx::TensorProto;
  switch (declared) {
  case TP::BOOL:
  case TP::INT8:
  case TP::INT16:
  case TP::INT32:
  case TP::INT64:
  case TP::UINT8:
  case TP::UINT16:
  case TP::UINT32:
  case TP::UINT64:
  case TP::FLOAT16:
  case TP::BFLOAT16:
  case TP::DOUBLE:
    return true;
  default:
    return false;
  }
}

} // namespace quarry::onnx_io

namespace quarry {

std::string export_onnx_bytes(const Model &m, uint64_t seed) {
  const onnx::ModelProto model = onnx_io::Exporter(m, seed).run();
  if (model.ByteSizeLong() >= onnx_io::kMaxMessageBytes)
    throw Error("export: the model comes to " +
                byte_size_text(model.ByteSizeLong()) +
                ", more than one ONNX file holds (2 GiB); written to a "
                "file, its weights go to ONNX external data");
  return model.SerializeAsString();
}

void export_onnx(const Model &m, const std::string &path, uint64_t seed,
                 const OnnxExportOptions &opts) {
  onnx::ModelProto model = onnx_io::Exporter(m, seed).run();
  if (!opts.external_data && model.ByteSizeLong() < onnx_io::kMaxMessageBytes) {
    write_file_atomic(path, model.SerializeAsString());
    return;
  }
  // The data file is complete before the model that points into it
  // appears, and goes again when the model cannot be written.
  const std::string data_path = path + ".data";
  AtomicFile data(data_path);
  const uint64_t moved = onnx_io::move_to_external(
      model, base_name(data_path), onnx_io::kExternalAtLeast, data);
  if (model.ByteSizeLong() >= onnx_io::kMaxMessageBytes)
    throw Error("export: " + path + " comes to " +
                byte_size_text(model.ByteSizeLong()) +
                " even with its raw tensors in external data, more than one "
                "ONNX file holds (2 GiB)");
  AtomicFile out(path);
  out.append(model.SerializeAsString());
  if (moved > 0) // else no data file: every tensor is small
    data.commit();
  out.commit();
}

} // namespace quarry
