//===- onnx_export_restored.cc - Recorded nodes written back as they were -===//
//
// Which of import's records (onnx_restorable.h) export writes as the ONNX
// node they hold, and writing them.
//
//===----------------------------------------------------------------------===//
#include "onnx_exporter.h"

#include <charconv>
#include <numeric>
#include <optional>

namespace quarry::onnx_io {

namespace {

std::vector<std::string> strings_attr(const onnx::NodeProto &n,
                                      const char *name) {
  const onnx::AttributeProto *a = find_attr(n, name);
  if (!a)
    return {};
  return {a->strings().begin(), a->strings().end()};
}

/// The names of the leaves a group's text reads (`@name:k`).
std::set<std::string> leaf_names(const std::string &text) {
  std::set<std::string> names;
  for (size_t at = text.find('@'); at != std::string::npos;
       at = text.find('@', at + 1)) {
    const size_t end = text.find_first_of(" \n", at);
    const std::string ref = text.substr(at + 1, end - at - 1);
    names.insert(ref.substr(0, ref.rfind(':')));
  }
  return names;
}

} // namespace

int64_t Exporter::source_opset() const {
  int64_t source = 0;
  for (const auto &op : kept_.opset_import())
    if (onnx_io::default_domain(op.domain()))
      source = op.version();
  return source;
}

std::vector<bool> Exporter::choose_restored(const std::vector<bool> &live) {
  // First at the model's own opset; where the operators written in
  // quarry's forms need a later one, again without the records whose
  // operator changed since, until the opset they need stays.
  int64_t opset = source_opset();
  for (;;) {
    std::vector<bool> now = find_restored(live, opset);
    const int64_t need = std::max(source_opset(), least_opset(now));
    if (need <= opset)
      return now;
    opset = need;
  }
}

std::vector<bool> Exporter::find_restored(const std::vector<bool> &live,
                                          int64_t opset) {
  restored_.clear();
  weight_dims_.clear();
  typed_.clear();
  raw_only_.clear();
  const onnx::FunctionProto *records =
      onnx_io::quarry_record(kept_, kRestorableFunction);
  const int64_t source = source_opset();
  if (!records || source == 0)
    return live;

  const int32_t count = g_.num_nodes();
  std::map<std::string, int32_t> by_name;
  std::set<std::string> ambiguous;
  for (int32_t id = 0; id < count; ++id)
    if (const std::string &nm = g_.node(id).name;
        !nm.empty() && !by_name.emplace(nm, id).second)
      ambiguous.insert(nm);
  auto find = [&](const std::string &ref) -> std::optional<ValueRef> {
    const size_t colon = ref.rfind(':');
    if (colon == std::string::npos)
      return std::nullopt;
    const std::string nm = ref.substr(0, colon);
    auto it = by_name.find(nm);
    int32_t out = -1;
    const char *end = ref.data() + ref.size();
    if (it == by_name.end() || ambiguous.count(nm) ||
        std::from_chars(ref.data() + colon + 1, end, out).ptr != end ||
        out < 0 || out >= g_.node(it->second).num_outputs)
      return std::nullopt;
    return ValueRef{it->second, out};
  };
  std::vector<std::vector<int32_t>> readers(static_cast<size_t>(count));
  for (int32_t id = 0; id < count; ++id)
    if (live[id])
      for (ValueRef in : g_.node(id).inputs)
        readers[in.node].push_back(id);
  std::set<int32_t> graph_outputs;
  for (ValueRef v : g_.outputs())
    graph_outputs.insert(v.node);
  // The dims the model gave each weight (the names record).
  std::map<std::string, Ints> onnx_dims;
  if (const onnx::FunctionProto *names = onnx_io::names_record(kept_))
    for (const auto &r : names->node())
      if (const onnx::AttributeProto *d = find_attr(r, "dims");
          d && r.input_size() == 1)
        onnx_dims[r.input(0)] = Ints(d->ints().begin(), d->ints().end());

  std::set<int32_t> claimed;
  for (const onnx::NodeProto &r : records->node()) {
    if (!onnx_io::changed_operator(r, source, opset).empty())
      continue;
    const onnx::AttributeProto *text = find_attr(r, kShapeAttr);
    const std::vector<std::string> operand_refs =
        strings_attr(r, kOperandsAttr);
    const std::vector<std::string> result_refs = strings_attr(r, kResultsAttr);
    std::vector<int64_t> types(operand_refs.size() + result_refs.size(), 0);
    if (const onnx::AttributeProto *t = find_attr(r, kTypesAttr))
      types.assign(t->ints().begin(), t->ints().end());
    if (!text || operand_refs.size() != static_cast<size_t>(r.input_size()) ||
        result_refs.size() != static_cast<size_t>(r.output_size()) ||
        types.size() != operand_refs.size() + result_refs.size())
      continue;
    Restored chosen;
    chosen.record = &r;
    chosen.results.assign(result_refs.size(), ValueRef{-1, 0});
    chosen.operands.assign(operand_refs.size(), ValueRef{-1, 0});
    chosen.raw.assign(operand_refs.size(), false);
    chosen.types.assign(types.begin(), types.end());
    std::vector<ValueRef> present;
    bool ok = true;
    for (size_t k = 0; ok && k < result_refs.size(); ++k) {
      if (result_refs[k].empty())
        continue;
      const auto v = find(result_refs[k]);
      ok = v.has_value();
      if (ok) {
        chosen.results[k] = *v;
        present.push_back(*v);
      }
    }
    if (!ok || present.empty())
      continue;
    // The same operators, attributes and wiring as import made.
    const std::set<std::string> leaves = leaf_names(text->s());
    const auto shape = group_shape(g_, present, [&](int32_t id) {
      return leaves.count(g_.node(id).name) > 0;
    });
    if (!shape || shape->text != text->s() || shape->nodes.empty())
      continue;
    const std::set<int32_t> group(shape->nodes.begin(), shape->nodes.end());
    const int32_t last = *group.rbegin();
    // Read by nothing else but where the node's outputs are, after it.
    for (int32_t id : shape->nodes) {
      const bool result = std::any_of(present.begin(), present.end(),
                                      [&](ValueRef v) { return v.node == id; });
      ok = ok && !claimed.count(id) && (result || !graph_outputs.count(id));
      for (int32_t u : readers[id])
        ok = ok && (group.count(u) || (result && u > last));
    }
    // Its operands, in the types the node reads them: float32, a graph
    // input in its own type, or a typed result of a node written back.
    std::map<int32_t, Ints> &dims = chosen.weight_dims;
    for (size_t i = 0; ok && i < operand_refs.size(); ++i) {
      const std::string &ref = operand_refs[i];
      if (ref.empty())
        continue;
      if (ref == kConstantOperand) {
        ok = kept_constants_.count(r.input(static_cast<int>(i))) > 0;
        continue;
      }
      const auto v = find(ref);
      ok = v && std::find(shape->leaves.begin(), shape->leaves.end(), *v) !=
                    shape->leaves.end();
      if (!ok)
        break;
      chosen.operands[i] = *v;
      const Node &w = g_.node(v->node);
      const int32_t want =
          types[i] ? static_cast<int32_t>(types[i]) : onnx::TensorProto::FLOAT;
      chosen.raw[i] = want != onnx::TensorProto::FLOAT && w.is_variable() &&
                      cast_variable(w) && input_elem_.at(w.name) == want;
      // A float16 operand reads a float32 value cast (emit_restored).
      ok = chosen.raw[i] || elem(*v) == want ||
           (half_float(want) && elem(*v) == onnx::TensorProto::FLOAT);
      if (!ok)
        break;
      auto d = onnx_dims.find(w.name);
      if (w.kind != OpKind::Weight || d == onnx_dims.end() ||
          d->second == w.types.at(0).shape.dims)
        continue;
      // Written in the node's dims where nothing else reads it.
      ok = !cast_variable(w);
      for (int32_t u : readers[v->node])
        ok = ok && group.count(u);
      dims[v->node] = d->second;
    }
    if (!ok)
      continue;
    chosen.nodes = shape->nodes;
    claimed.insert(group.begin(), group.end());
    for (size_t k = 0; k < chosen.results.size(); ++k)
      if (const int64_t t = types[operand_refs.size() + k];
          t && chosen.results[k].node >= 0)
        typed_[chosen.results[k]] = static_cast<int32_t>(t);
    restored_.emplace(last, std::move(chosen));
  }
  drop_mistyped(readers);
  for (const auto &[at, r] : restored_)
    weight_dims_.insert(r.weight_dims.begin(), r.weight_dims.end());

  // Live once the chosen nodes are written: each stands for its operators
  // (at its last one) and reads its operands.
  std::vector<int32_t> owner(static_cast<size_t>(count));
  std::iota(owner.begin(), owner.end(), 0);
  for (const auto &[at, r] : restored_)
    for (int32_t id : r.nodes)
      owner[id] = at;
  // A graph input or weight held as float32 that only those read in its
  // own type goes out without its float32 Cast.
  std::set<int32_t> float_read;
  for (int32_t id = 0; id < count; ++id)
    for (int32_t u : readers[id])
      if (owner[u] == u && !restored_.count(u))
        float_read.insert(id);
  for (const auto &[at, r] : restored_)
    for (size_t i = 0; i < r.operands.size(); ++i)
      if (r.operands[i].node >= 0 && !r.raw[i])
        float_read.insert(r.operands[i].node);
  for (ValueRef v : g_.outputs())
    float_read.insert(v.node);
  for (int32_t id = 0; id < count; ++id)
    if (g_.node(id).is_variable() && cast_variable(g_.node(id)) &&
        !float_read.count(id))
      raw_only_.insert(id);
  std::vector<bool> now(static_cast<size_t>(count), false);
  for (ValueRef v : g_.outputs())
    now[owner[v.node]] = true;
  for (int32_t id = count - 1; id >= 0; --id) {
    if (!now[id])
      continue;
    if (auto r = restored_.find(id); r != restored_.end()) {
      for (ValueRef v : r->second.operands)
        if (v.node >= 0)
          now[owner[v.node]] = true;
      continue;
    }
    for (ValueRef v : g_.node(id).inputs)
      now[owner[v.node]] = true;
  }
  return now;
}

void Exporter::drop_mistyped(const std::vector<std::vector<int32_t>> &readers) {
  // Until none is dropped: a node written back whose typed operand is no
  // longer a typed result (but for float16 and bfloat16, cast from float32
  // where a recorded node reads them), or whose typed result is a graph
  // output the model declares otherwise, goes out in quarry's forms. A
  // typed result something else reads as float32 is cast to it (a
  // ConvInteger's int32 sums, as the model's own Cast does).
  const auto outputs = declared_outputs();
  const auto half = [](int64_t t) {
    return half_float(static_cast<int32_t>(t));
  };
  read_as_float_.clear();
  // Which recorded node each operator belongs to, as of the last pass.
  std::map<int32_t, int32_t> owner;
  for (bool dropped = true; dropped;) {
    dropped = false;
    owner.clear();
    for (const auto &[at, r] : restored_)
      for (int32_t id : r.nodes)
        owner[id] = at;
    for (auto it = restored_.begin(); it != restored_.end();) {
      const Restored &r = it->second;
      const size_t inputs = r.operands.size();
      bool ok = true;
      for (size_t i = 0; i < inputs; ++i)
        if (r.types[i] && !r.raw[i] && r.operands[i].node >= 0) {
          auto t = typed_.find(r.operands[i]);
          ok = ok && ((t == typed_.end() && half(r.types[i])) ||
                      (t != typed_.end() && t->second == r.types[i]));
        }
      for (size_t k = 0; k < r.results.size(); ++k) {
        const ValueRef v = r.results[k];
        const int64_t type = r.types[inputs + k];
        if (!type || v.node < 0 || half(type))
          continue;
        // A graph output the model declares of that type.
        for (const auto &[out, declared] : outputs)
          ok = ok && (out != v || declared == type);
      }
      if (ok) {
        ++it;
        continue;
      }
      for (ValueRef v : r.results)
        typed_.erase(v);
      it = restored_.erase(it);
      dropped = true;
    }
  }
  // The typed results something else reads as float32: quarry's forms, a
  // recorded node reading float32 (or another type), a graph output of
  // float16 declared otherwise. (The last pass dropped nothing: `owner` is
  // the records kept.)
  for (const auto &[v, type] : typed_) {
    bool as_float = false;
    for (const auto &[out, declared] : outputs)
      as_float = as_float || (out == v && declared != type);
    for (int32_t u : readers[v.node]) {
      auto o = owner.find(u);
      if (o == owner.end()) { // quarry's forms, or a Cast of v changing nothing
        as_float = as_float || cast_to_its_own_type(u) != std::optional{v};
        continue;
      }
      if (o->second == owner.at(v.node))
        continue; // within the node computing it
      const Restored &other = restored_.at(o->second);
      for (size_t j = 0; j < other.operands.size(); ++j)
        as_float =
            as_float || (other.operands[j] == v && other.types[j] != type);
    }
    if (as_float)
      read_as_float_.insert(v);
  }
}

void Exporter::emit_restored(const Restored &r) {
  // A float32 value a float16 operand reads, cast first (once).
  std::vector<std::string> operands(r.operands.size());
  for (size_t i = 0; i < r.operands.size(); ++i) {
    const ValueRef v = r.operands[i];
    if (v.node < 0)
      continue;
    if (r.raw[i]) {
      operands[i] = variable_name(v);
    } else if (r.types[i] && !typed_.count(v)) {
      operands[i] = name(v) + "_as_" + std::to_string(r.types[i]);
      if (half_copies_.insert(v).second)
        attr(node("Cast", {name(v)},
                  {derived(name(v), "_as_" + std::to_string(r.types[i]))}),
             "to", static_cast<int64_t>(r.types[i]));
    } else {
      operands[i] = r.types[i] ? typed_name(v) : name(v);
    }
  }
  // Its constant operands, first: a node that folded into one goes before
  // it.
  const onnx::NodeProto &record = *r.record;
  for (int i = 0; i < record.input_size(); ++i) {
    if (r.operands[i].node >= 0)
      continue;
    auto c = kept_constants_.find(record.input(i));
    if (c == kept_constants_.end() ||
        !written_constants_.insert(c->first).second)
      continue;
    auto f = folded_constants_.find(c->first);
    if (f == folded_constants_.end() || !emit_folded(*f->second, c->first))
      *graph_->add_initializer() = *c->second;
  }
  onnx::NodeProto &k = as_written(record, *graph_->add_node());
  for (int i = 0; i < k.input_size(); ++i)
    if (r.operands[i].node >= 0)
      k.set_input(i, operands[i]);
  for (int o = 0; o < k.output_size(); ++o)
    if (r.results[o].node >= 0)
      k.set_output(o, typed_name(r.results[o]));
  // The float32 copy of a float16 result quarry's forms read.
  for (ValueRef v : r.results)
    if (v.node >= 0 && read_as_float_.count(v))
      attr(node("Cast", {typed_name(v)}, {derived(typed_name(v), "_float")}),
           "to", int64_t{onnx::TensorProto::FLOAT});
}

bool Exporter::emit_folded(const onnx::NodeProto &r, const std::string &out) {
  if (!onnx_io::changed_operator(r, source_opset_, export_opset_).empty())
    return false;
  for (const std::string &i : r.input())
    if (!i.empty() && !kept_constants_.count(i))
      return false;
  as_written(r, *folded_nodes_.Add()).set_output(0, out);
  for (const std::string &i : r.input())
    if (!i.empty() && written_constants_.insert(i).second)
      *graph_->add_initializer() = *kept_constants_.at(i);
  return true;
}

onnx::NodeProto &Exporter::as_written(const onnx::NodeProto &record,
                                      onnx::NodeProto &k) const {
  k = record;
  onnx_io::drop_quarry_attrs(k);
  if (source_opset_ > onnx_io::kSchemaOpset)
    onnx_io::hold_late_form(k);
  return k;
}

bool Exporter::emit_folded_weight(int32_t id, const Tensor<float> &value) {
  auto f = folded_weights_.find(g_.node(id).name);
  if (f == folded_weights_.end())
    return false;
  const onnx::NodeProto &r = *f->second;
  const onnx::AttributeProto *dims = find_attr(r, kDimsAttr);
  const onnx::AttributeProto *hash = find_attr(r, kValuesHashAttr);
  return dims && hash &&
         Ints(dims->ints().begin(), dims->ints().end()) == value.shape.dims &&
         hash->i() == values_hash(value) && emit_folded(r, name({id, 0}));
}

} // namespace quarry::onnx_io
