//===- onnx_import_names.cc - The ONNX names import records ---------------===//
//
// Import binds each quarry operator the names of the ONNX values it
// computes, and records those names, the ONNX node's and each weight's
// (kNamesFunction, onnx_kept.h), so that export gives them back.
//
//===----------------------------------------------------------------------===//
#include "onnx_attrs.h"
#include "onnx_importer.h"
#include "onnx_kept.h"

#include <algorithm>
#include <map>

namespace quarry::onnx_io {

void Importer::name_outputs(const onnx::NodeProto &n, int before) {
  // Each quarry operator this node made that computes its outputs, with
  // the ONNX name of each of its own outputs.
  std::map<int32_t, std::vector<std::string>> named;
  for (const std::string &o : n.output()) {
    auto v = values_.find(o);
    if (o.empty() || v == values_.end() || v->second.node < before)
      continue; // passed through (an Identity), folded, or kept
    const Node &q = g_.node(v->second.node);
    if (q.is_variable() || q.kind == OpKind::Opaque)
      continue;
    auto &names = named[v->second.node];
    names.resize(static_cast<size_t>(q.num_outputs));
    if (names[static_cast<size_t>(v->second.output)].empty())
      names[static_cast<size_t>(v->second.output)] = o;
  }
  for (const auto &[id, names] : named) {
    if (std::any_of(names.begin(), names.end(),
                    [](const std::string &s) { return s.empty(); }))
      continue; // an output the model does not name: quarry's names stay
    // The handler's name for it (the node's) gives way to the values'.
    taken_.erase(g_.node(id).name);
    std::string joined;
    for (const std::string &o : names)
      joined += (joined.empty() ? "" : ",") + fresh_name(o);
    g_.set_name(id, joined);
    record_names(joined, names, n.name());
  }
}

void Importer::name_weight(ValueRef w, const std::string &onnx_name,
                           const Shape &onnx_shape) {
  onnx::NodeProto &r = record_names(g_.node(w.node).name, {onnx_name}, "");
  add_attr(r, "dims", onnx_shape.dims);
  record_folded_weight(onnx_name, w, onnx_shape);
}

onnx::NodeProto &Importer::record_names(const std::string &quarry,
                                        const std::vector<std::string> &onnx,
                                        const std::string &node_name) {
  onnx::NodeProto *r = kept_function(kNamesFunction).add_node();
  r->set_op_type("Name");
  r->set_domain(kRecordDomain);
  r->add_input(quarry);
  for (const std::string &o : onnx)
    r->add_output(o);
  if (!node_name.empty())
    r->set_name(node_name);
  return *r;
}

} // namespace quarry::onnx_io
