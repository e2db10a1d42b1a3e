//===- onnx_import_restorable.cc - Recording nodes export can write back --===//
//
// After a node's handler: the node, what it made and what that reads, in
// the record export looks for (onnx_restorable.h).
//
//===----------------------------------------------------------------------===//
#include "onnx_attrs.h"
#include "onnx_external_data.h"
#include "onnx_importer.h"
#include "onnx_kept.h"
#include "onnx_restorable.h"

#include <algorithm>

namespace quarry::onnx_io {

namespace {

/// A constant a record keeps beside the model's weights (a Reshape's shape,
/// a Resize's scales) holds at most this many values: a larger one is a
/// weight the handler transformed, and keeping it would store it twice;
/// but for one of one byte a value (int8 weights), whose copy is a quarter
/// of quarry's float32 weight and makes the node go out quantized.
constexpr int64_t kMaxRecordedConstant = 4096;

} // namespace

int32_t Importer::half_elem(const std::string &name) const {
  if (auto h = half_.find(name); h != half_.end())
    return h->second;
  if (constants_.contains(name) && half_float(constants_.elem(name)))
    return constants_.elem(name);
  return 0;
}

void Importer::note_half_outputs(const onnx::NodeProto &n) {
  int32_t elem = 0;
  if (n.op_type() == "Cast" && default_domain(n.domain())) {
    for (const auto &a : n.attribute())
      if (a.name() == "to" && half_float(static_cast<int32_t>(a.i())))
        elem = static_cast<int32_t>(a.i());
  } else if (n.op_type() == "CastLike" && default_domain(n.domain())) {
    elem = n.input_size() > 1 ? half_elem(n.input(1)) : 0;
  } else {
    for (const std::string &i : n.input())
      if (!i.empty() && !elem)
        elem = half_elem(i);
  }
  if (!elem)
    return;
  for (const std::string &o : n.output())
    if (!o.empty() && values_.count(o) && !held_.count(o) && !elem_.count(o) &&
        !untyped_.count(o) && !constants_.contains(o))
      half_[o] = elem;
}

void Importer::record_restorable(const onnx::NodeProto &n, int before) {
  // The record is the node as the model wrote it, in its own opset's form
  // (past opset 17 too); a node with subgraphs goes back out by its own
  // path, and so does a node of another domain, unless it calls a local
  // function.
  if (!default_domain(n.domain()) && !local_function(n))
    return;
  for (const auto &a : n.attribute())
    if (a.has_g() || a.graphs_size() > 0)
      return;
  std::vector<ValueRef> results;
  std::vector<std::string> result_refs;
  // Per input, then per output: the ONNX type of a value quarry holds as
  // float32 (a bool, a quantized integer), 0 for float32 itself.
  std::vector<int64_t> types;
  for (const std::string &o : n.output()) {
    if (o.empty()) {
      result_refs.emplace_back();
      continue;
    }
    // Computed here: not passed through, folded or kept.
    auto v = values_.find(o);
    if (v == values_.end() || v->second.node < before || elem_.count(o) ||
        untyped_.count(o))
      return;
    const Node &q = g_.node(v->second.node);
    if (q.is_variable() || q.kind == OpKind::Opaque)
      return;
    results.push_back(v->second);
    result_refs.push_back(value_ref(g_, v->second));
    if (result_refs.back().empty())
      return;
  }
  if (results.empty())
    return;
  const auto shape =
      group_shape(g_, results, [&](int32_t id) { return id < before; });
  if (!shape)
    return;
  for (int32_t id : shape->nodes)
    if (g_.node(id).kind == OpKind::Opaque)
      return;
  std::vector<std::string> operands;
  std::vector<onnx::TensorProto> constants;
  std::vector<ValueRef> read;
  // A constant operand, written back as the model wrote it.
  auto keep = [&](const std::string &i) {
    const Constant *c = constants_.find(i);
    if (!c || (c->shape.numel() > kMaxRecordedConstant &&
               raw_bytes_per_value(c->elem) != 1))
      return false;
    try {
      if (!kept_constant(i, constants, true))
        return false;
    } catch (const Error &) {
      return false;
    }
    operands.emplace_back(kConstantOperand);
    types.back() = 0; // in its own type
    // What it folded from, which export writes in its place.
    if (folded_constants_.insert(i).second)
      record_folded(i);
    return true;
  };
  for (const std::string &i : n.input()) {
    if (i.empty()) {
      operands.emplace_back();
      types.push_back(0);
      continue;
    }
    if (untyped_.count(i))
      return;
    auto held = held_.find(i);
    auto other = elem_.find(i);
    types.push_back(held != held_.end()    ? held->second
                    : other != elem_.end() ? other->second
                                           : half_elem(i));
    if (auto v = values_.find(i); v != values_.end()) {
      if (std::find(shape->leaves.begin(), shape->leaves.end(), v->second) ==
          shape->leaves.end())
        return;
      read.push_back(v->second);
      // A constant of another type than float32 (float16, bfloat16), a
      // quantization's zero point, quarry holds as a float32 weight, which
      // would go out in float32.
      if (constants_.contains(i) &&
          constants_.elem(i) != onnx::TensorProto::FLOAT &&
          !half_float(constants_.elem(i))) {
        if (!keep(i))
          return;
        continue;
      }
      // A value the operators read: computed, or a constant made a weight.
      operands.push_back(value_ref(g_, v->second));
      continue;
    }
    if (!keep(i))
      return;
  }
  // Anything else the operators read is a weight the handler made from the
  // node's constants.
  for (ValueRef l : shape->leaves)
    if (std::find(read.begin(), read.end(), l) == read.end() &&
        !(g_.node(l.node).kind == OpKind::Weight && l.node >= before))
      return;

  onnx::NodeProto &r = *kept_function(kRestorableFunction).add_node();
  r = n;
  add_attr(r, kShapeAttr, shape->text);
  add_attr(r, kOperandsAttr, operands);
  add_attr(r, kResultsAttr, result_refs);
  for (const std::string &o : n.output()) {
    auto held = held_.find(o);
    types.push_back(held == held_.end() ? half_elem(o) : held->second);
  }
  if (std::any_of(types.begin(), types.end(), [](int64_t t) { return t; }))
    add_attr(r, kTypesAttr, types);
  for (auto &t : constants)
    if (kept_constants_.insert(t.name()).second)
      *kept_.mutable_graph()->add_initializer() = std::move(t);
}

void Importer::note_folded(const onnx::NodeProto &n) {
  if (n.output_size() != 1 || n.output(0).empty())
    return;
  const Constant *out = constants_.find(n.output(0));
  if (!out || out->elem != onnx::TensorProto::FLOAT)
    return;
  // Computed from values of another type (int8 or int32 ones and their
  // scales, float16 ones), none more than it holds: not a part of a larger
  // constant, which writing the node would store whole.
  const Constant *first =
      n.input_size() ? constants_.find(n.input(0)) : nullptr;
  if (!first || first->elem == onnx::TensorProto::FLOAT)
    return;
  for (const std::string &i : n.input()) {
    if (i.empty())
      continue;
    const Constant *c = constants_.find(i);
    if (!c || c->shape.numel() > out->shape.numel())
      return;
  }
  folded_.emplace(n.output(0), n);
}

onnx::NodeProto *Importer::record_folded(const std::string &name) {
  auto f = folded_.find(name);
  if (f == folded_.end())
    return nullptr;
  std::vector<onnx::TensorProto> constants;
  for (const std::string &i : f->second.input())
    try {
      if (!i.empty() && !kept_constant(i, constants, true))
        return nullptr;
    } catch (const Error &) {
      return nullptr;
    }
  for (auto &t : constants)
    if (kept_constants_.insert(t.name()).second)
      *kept_.mutable_graph()->add_initializer() = std::move(t);
  onnx::NodeProto &r = *kept_function(kFoldedWeightsFunction).add_node();
  r = f->second;
  return &r;
}

void Importer::record_folded_weight(const std::string &name, ValueRef w,
                                    const Shape &onnx_shape) {
  onnx::NodeProto *r = record_folded(name);
  if (!r)
    return;
  const Node &weight = g_.node(w.node);
  add_attr(*r, kResultsAttr, std::vector<std::string>{weight.name});
  add_attr(*r, kDimsAttr, onnx_shape.dims);
  add_attr(*r, kValuesHashAttr, values_hash(weights_.at(weight.name)));
}

} // namespace quarry::onnx_io
