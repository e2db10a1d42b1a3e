//===- onnx_import_functions.cc - Calls of the model's local functions ----===//
//
// A node that calls one of the model's local functions (ModelProto's
// functions) imports as the nodes of the function's body in its place:
// the body's inputs and outputs are the call's values, its other values
// are named "CALL/NAME" (CALL the call's name, or its first output's), and
// an attribute a body node takes from the call (ref_attr_name) is the
// call's, or left unset where the call sets none. A call in a body inlines
// in turn; a function calling itself, which ONNX does not allow, is
// refused. Export writes the call back, with the function, where the graph
// still holds what its body made (onnx_restorable.h). A function whose
// nodes would import by another opset than the model's, or that holds
// subgraphs, is not inlined: its calls are kept as nodes, as any node of
// another domain.
//
//===----------------------------------------------------------------------===//
#include "onnx_attrs.h"
#include "onnx_importer.h"
#include "onnx_kept.h"

#include <algorithm>

namespace quarry::onnx_io {

namespace {

/// Nodes inlined in all, at most: functions calling each other several
/// times a level grow a body past any model's.
constexpr size_t kMaxInlinedNodes = size_t{1} << 18;

} // namespace

const onnx::FunctionProto *
Importer::local_function(const onnx::NodeProto &n) const {
  for (const auto &f : model_.functions()) {
    if (f.name() != n.op_type() || f.domain() != n.domain())
      continue;
    for (const auto &op : f.opset_import())
      if (default_domain(op.domain()) && op.version() != opset_)
        return nullptr;
    for (const auto &body : f.node())
      for (const auto &a : body.attribute())
        if (a.has_g() || a.graphs_size() > 0)
          return nullptr;
    return &f;
  }
  return nullptr;
}

std::vector<const onnx::NodeProto *>
Importer::inline_call(const onnx::NodeProto &call,
                      const onnx::FunctionProto &f) {
  std::string call_name = call.name();
  for (int k = 0; call_name.empty() && k < call.output_size(); ++k)
    call_name = call.output(k);
  const std::string prefix = call_name + "/";
  std::map<std::string, std::string> bound;
  for (int i = 0; i < f.input_size(); ++i)
    bound[f.input(i)] = i < call.input_size() ? call.input(i) : "";
  for (int i = 0; i < f.output_size(); ++i)
    bound[f.output(i)] = i < call.output_size() && !call.output(i).empty()
                             ? call.output(i)
                             : prefix + f.output(i);
  const auto name_of = [&](std::string &v) {
    if (v.empty())
      return;
    auto b = bound.find(v);
    v = b != bound.end() ? b->second : prefix + v;
  };
  if (inlined_.size() + static_cast<size_t>(f.node_size()) > kMaxInlinedNodes)
    fail("inlining the model's local functions makes more than " +
         std::to_string(kMaxInlinedNodes) + " nodes (calls within calls)");
  std::vector<const onnx::NodeProto *> body;
  for (int k = 0; k < f.node_size(); ++k) {
    onnx::NodeProto n = f.node(k);
    n.set_name(prefix + (n.name().empty() ? std::to_string(k) : n.name()));
    for (auto &i : *n.mutable_input())
      name_of(i);
    for (auto &o : *n.mutable_output())
      name_of(o);
    auto *attrs = n.mutable_attribute();
    for (int a = attrs->size() - 1; a >= 0; --a) {
      onnx::AttributeProto &at = *attrs->Mutable(a);
      if (at.ref_attr_name().empty())
        continue;
      const onnx::AttributeProto *given =
          find_attr(call, at.ref_attr_name().c_str());
      if (!given) {
        attrs->DeleteSubrange(a, 1);
        continue;
      }
      const std::string name = at.name();
      at = *given;
      at.set_name(name);
    }
    inlined_.push_back(std::move(n));
    body.push_back(&inlined_.back());
  }
  return body;
}

void Importer::import_call_or_node(
    const onnx::NodeProto &n,
    const std::map<std::string, Handler, std::less<>> &table, int depth) {
  const int before = g_.num_nodes();
  if (const onnx::FunctionProto *f = local_function(n)) {
    node_ = &n; // what a refusal names
    if (std::find(calling_.begin(), calling_.end(), f) != calling_.end())
      fail("calls local function '" + f->name() +
           "' within itself, which ONNX does not allow");
    calling_.push_back(f);
    for (const onnx::NodeProto *body : inline_call(n, *f))
      import_call_or_node(*body, table, depth + 1);
    calling_.pop_back();
  } else {
    node_ = &n;
    import_node(table);
    name_outputs(n, before);
    note_half_outputs(n);
  }
  node_ = &n;
  // What the model wrote: each of its nodes, a call whole.
  if (depth == 0)
    record_restorable(n, before);
}

} // namespace quarry::onnx_io
