//===- onnx_sequences.cc - Sequences of known tensors as tensor nodes -----===//
//
// A sequence that a graph builds from tensors and reads back as tensors
// holds a known list of them at each point: SequenceEmpty and
// SequenceConstruct make one, SplitToSequence splits a tensor into one,
// SequenceInsert and SequenceErase at constant positions change one, and
// SequenceAt (a constant position), SequenceLength and ConcatFromSequence
// read one. Before import such nodes become the tensor nodes that compute
// the same: Identity of the element, a Constant length, Concat (of
// Unsqueezed elements with new_axis), Split (then Squeeze without keepdims).
// Where any sequence escapes (a graph output, a read inside a subgraph, by
// another operator, a position not constant, a split whose count needs a
// shape shape inference does not give), the graph is left as it was and
// its sequence nodes are kept (onnx_import_kept.cc).
//
//===----------------------------------------------------------------------===//
#include "onnx_sequences.h"

#include "onnx_attrs.h"
#include "onnx_tensor.h"

#include "quarry/core/error.h"

#include <onnx/shape_inference/implementation.h>

#include <map>
#include <optional>
#include <set>

namespace quarry::onnx_io {

namespace {

using Names = std::vector<std::string>;

bool makes_sequence(const std::string &op) {
  return op == "SequenceEmpty" || op == "SequenceConstruct" ||
         op == "SplitToSequence" || op == "SequenceInsert" ||
         op == "SequenceErase";
}

/// Whether operator `op` may read a sequence as input `i`.
bool reads_sequence(const std::string &op, int i) {
  return i == 0 && (op == "SequenceAt" || op == "SequenceLength" ||
                    op == "ConcatFromSequence" || op == "SequenceInsert" ||
                    op == "SequenceErase");
}

/// Every name read by the nodes of `g`'s subgraphs, at any depth.
void subgraph_reads(const onnx::GraphProto &g, bool inside,
                    std::set<std::string> &out) {
  for (const auto &n : g.node()) {
    if (inside)
      out.insert(n.input().begin(), n.input().end());
    for (const auto &a : n.attribute()) {
      if (a.has_g())
        subgraph_reads(a.g(), true, out);
      for (const auto &sub : a.graphs())
        subgraph_reads(sub, true, out);
    }
  }
}

/// The integer constants of `g`: initializers and Constant nodes.
std::map<std::string, std::vector<int64_t>>
integer_constants(const onnx::GraphProto &g) {
  std::map<std::string, std::vector<int64_t>> out;
  auto add = [&](const std::string &name, const onnx::TensorProto &t) {
    if (t.data_type() != onnx::TensorProto::INT64 &&
        t.data_type() != onnx::TensorProto::INT32)
      return;
    try {
      out[name] = decode_tensor(t).ints;
    } catch (const Error &) {
    }
  };
  for (const auto &t : g.initializer())
    add(t.name(), t);
  for (const auto &n : g.node())
    if (n.op_type() == "Constant" && n.output_size() == 1)
      if (const auto *v = find_attr(n, "value"); v && v->has_t())
        add(n.output(0), v->t());
  return out;
}

struct Rewriter {
  onnx::ModelProto &model;
  int64_t opset;
  std::map<std::string, std::vector<int64_t>> ints;
  std::map<std::string, Names> lists;
  std::optional<onnx::ModelProto> inferred;
  std::vector<onnx::TensorProto> added;
  int fresh = 0;

  /// A new int64 initializer of `v`, 1-D (or a scalar), named from `hint`.
  std::string constant(const std::string &hint, const std::vector<int64_t> &v,
                       bool scalar = false) {
    onnx::TensorProto t;
    t.set_name(hint + "#sequence" + std::to_string(fresh++));
    t.set_data_type(onnx::TensorProto::INT64);
    if (!scalar)
      t.add_dims(static_cast<int64_t>(v.size()));
    for (int64_t x : v)
      t.add_int64_data(x);
    added.push_back(t);
    return t.name();
  }

  /// Input `i` of `n` as a single constant integer (absent: `fallback`).
  std::optional<int64_t> position(const onnx::NodeProto &n, int i,
                                  std::optional<int64_t> fallback) {
    if (i >= n.input_size() || n.input(i).empty())
      return fallback;
    auto it = ints.find(n.input(i));
    if (it == ints.end() || it->second.size() != 1)
      return std::nullopt;
    return it->second[0];
  }

  /// The extent of axis `axis` of value `name`, by ONNX's shape inference.
  std::optional<int64_t> extent(const std::string &name, int64_t axis) {
    if (!inferred) {
      inferred = model;
      try {
        onnx::shape_inference::InferShapes(*inferred);
      } catch (const std::exception &) {
        return std::nullopt;
      }
    }
    const auto &g = inferred->graph();
    for (const auto *list : {&g.input(), &g.value_info(), &g.output()})
      for (const auto &v : *list) {
        if (v.name() != name || !v.type().has_tensor_type())
          continue;
        const auto &s = v.type().tensor_type().shape();
        const int64_t rank = s.dim_size();
        if (axis < -rank || axis >= rank)
          return std::nullopt;
        const auto &d = s.dim(static_cast<int>(axis < 0 ? axis + rank : axis));
        if (d.has_dim_value())
          return d.dim_value();
      }
    return std::nullopt;
  }

  onnx::NodeProto node(const onnx::NodeProto &like, const std::string &op,
                       const Names &in, const Names &out) {
    onnx::NodeProto n;
    n.set_op_type(op);
    n.set_name(like.name().empty() ? out.at(0) : like.name());
    for (const auto &i : in)
      n.add_input(i);
    for (const auto &o : out)
      n.add_output(o);
    return n;
  }

  /// Squeeze or Unsqueeze of `in` along `axis` into `out`.
  onnx::NodeProto axis_node(const onnx::NodeProto &like, const char *op,
                            const std::string &in, int64_t axis,
                            const std::string &out) {
    if (opset >= 13)
      return node(like, op, {in, constant(out, {axis})}, {out});
    onnx::NodeProto n = node(like, op, {in}, {out});
    add_attr(n, "axes", std::vector<int64_t>{axis});
    return n;
  }

  /// The tensor nodes for sequence node `n`, or nullopt where it cannot
  /// be resolved; updates `lists`.
  std::optional<std::vector<onnx::NodeProto>>
  resolve(const onnx::NodeProto &n) {
    const std::string &op = n.op_type();
    if (n.output_size() != 1 ||
        !(n.domain().empty() || n.domain() == "ai.onnx"))
      return std::nullopt;
    std::vector<onnx::NodeProto> out;
    const Names *seq = nullptr;
    if (reads_sequence(op, 0)) {
      auto it = n.input_size() > 0 ? lists.find(n.input(0)) : lists.end();
      if (it == lists.end())
        return std::nullopt;
      seq = &it->second;
    }
    const auto size = static_cast<int64_t>(seq ? seq->size() : 0);
    // A position from -size to size - 1 (or to size, inserting).
    auto at = [&](std::optional<int64_t> p, bool insert) {
      std::optional<int64_t> r;
      if (p && *p >= -size && *p < size + (insert ? 1 : 0))
        r = *p < 0 ? *p + size : *p;
      return r;
    };
    if (op == "SequenceEmpty") {
      lists[n.output(0)] = {};
    } else if (op == "SequenceConstruct") {
      lists[n.output(0)] = Names(n.input().begin(), n.input().end());
    } else if (op == "SequenceInsert") {
      const auto p = at(position(n, 2, size), true);
      if (!p || n.input_size() < 2)
        return std::nullopt;
      Names l = *seq;
      l.insert(l.begin() + *p, n.input(1));
      lists[n.output(0)] = std::move(l);
    } else if (op == "SequenceErase") {
      const auto p = at(position(n, 1, size - 1), false);
      if (!p)
        return std::nullopt;
      Names l = *seq;
      l.erase(l.begin() + *p);
      lists[n.output(0)] = std::move(l);
    } else if (op == "SequenceAt") {
      const auto p = at(position(n, 1, std::nullopt), false);
      if (!p)
        return std::nullopt;
      out.push_back(node(n, "Identity", {(*seq)[*p]}, {n.output(0)}));
    } else if (op == "SequenceLength") {
      onnx::NodeProto c = node(n, "Constant", {}, {n.output(0)});
      onnx::TensorProto t;
      t.set_data_type(onnx::TensorProto::INT64);
      t.add_int64_data(size);
      add_attr(c, "value", t);
      out.push_back(std::move(c));
    } else if (op == "ConcatFromSequence") {
      if (size == 0 || !find_attr(n, "axis"))
        return std::nullopt;
      const int64_t axis = find_attr(n, "axis")->i();
      const bool stack =
          find_attr(n, "new_axis") && find_attr(n, "new_axis")->i();
      Names parts;
      for (const std::string &e : *seq) {
        if (!stack) {
          parts.push_back(e);
          continue;
        }
        parts.push_back(n.output(0) + "#" + std::to_string(parts.size()));
        out.push_back(axis_node(n, "Unsqueeze", e, axis, parts.back()));
      }
      onnx::NodeProto c = node(n, "Concat", parts, {n.output(0)});
      add_attr(c, "axis", axis);
      out.push_back(std::move(c));
    } else if (op == "SplitToSequence") {
      const int64_t axis = find_attr(n, "axis") ? find_attr(n, "axis")->i() : 0;
      const bool keep =
          !find_attr(n, "keepdims") || find_attr(n, "keepdims")->i() != 0;
      std::vector<int64_t> split;
      const bool given = n.input_size() > 1 && !n.input(1).empty();
      if (given) {
        auto it = ints.find(n.input(1));
        if (it == ints.end() || it->second.empty())
          return std::nullopt;
        split = it->second;
      }
      if (split.size() <= 1) { // a chunk size, or chunks of 1
        const int64_t chunk = split.empty() ? 1 : split[0];
        const auto length = extent(n.input(0), axis);
        if (!length || chunk < 1 || *length < 1 || *length / chunk > 4096)
          return std::nullopt;
        split.clear();
        for (int64_t left = *length; left > 0; left -= chunk)
          split.push_back(std::min(chunk, left));
      }
      // keepdims applies only where split is not given.
      const bool squeeze = !given && !keep;
      Names parts;
      for (size_t k = 0; k < split.size(); ++k)
        parts.push_back(n.output(0) + "#" + std::to_string(k));
      Names split_out = parts;
      if (squeeze)
        for (auto &p : split_out)
          p += "#kept";
      onnx::NodeProto s =
          opset >= 13
              ? node(n, "Split", {n.input(0), constant(n.output(0), split)},
                     split_out)
              : node(n, "Split", {n.input(0)}, split_out);
      if (opset < 13)
        add_attr(s, "split", split);
      add_attr(s, "axis", axis);
      out.push_back(std::move(s));
      if (squeeze)
        for (size_t k = 0; k < parts.size(); ++k)
          out.push_back(axis_node(n, "Squeeze", split_out[k], axis, parts[k]));
      lists[n.output(0)] = std::move(parts);
    } else {
      return std::nullopt;
    }
    return out;
  }
};

} // namespace

bool tensors_for_sequences(onnx::ModelProto &model) {
  if (!model.has_graph())
    return false;
  const onnx::GraphProto &g = model.graph();
  std::set<std::string> sequences;
  for (const auto &n : g.node())
    if (makes_sequence(n.op_type()) && n.output_size() == 1 &&
        n.domain().empty())
      sequences.insert(n.output(0));
  if (sequences.empty())
    return false;
  // Where a sequence escapes, nothing changes.
  std::set<std::string> inner;
  subgraph_reads(g, false, inner);
  for (const auto &o : g.output())
    if (sequences.count(o.name()))
      return false;
  for (const auto &name : sequences)
    if (inner.count(name))
      return false;
  for (const auto &n : g.node())
    for (int i = 0; i < n.input_size(); ++i)
      if (sequences.count(n.input(i)) && !reads_sequence(n.op_type(), i))
        return false;

  int64_t opset = 0;
  for (const auto &op : model.opset_import())
    if (op.domain().empty() || op.domain() == "ai.onnx")
      opset = op.version();
  if (opset < 11)
    return false;
  Rewriter r{model, opset, integer_constants(g), {}, {}, {}, 0};
  // Resolved in dependency order (the graph's may be any): a node waits
  // for the sequence it reads.
  std::map<int, std::vector<onnx::NodeProto>> replaced;
  std::set<int> pending;
  for (int k = 0; k < g.node_size(); ++k) {
    const auto &n = g.node(k);
    if (makes_sequence(n.op_type()) ||
        (n.input_size() > 0 && sequences.count(n.input(0))))
      pending.insert(k);
  }
  while (!pending.empty()) {
    bool progress = false;
    for (auto it = pending.begin(); it != pending.end();) {
      const auto &n = g.node(*it);
      if (reads_sequence(n.op_type(), 0) && !r.lists.count(n.input(0))) {
        if (!sequences.count(n.input(0)))
          return false; // a sequence no node here makes
        ++it;
        continue;
      }
      auto nodes = r.resolve(n);
      if (!nodes)
        return false;
      replaced[*it] = std::move(*nodes);
      it = pending.erase(it);
      progress = true;
    }
    if (!progress)
      return false;
  }
  onnx::GraphProto &mg = *model.mutable_graph();
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (int k = 0; k < mg.node_size(); ++k) {
    auto it = replaced.find(k);
    if (it == replaced.end()) {
      *nodes.Add() = mg.node(k);
      continue;
    }
    for (auto &n : it->second)
      *nodes.Add() = std::move(n);
  }
  mg.mutable_node()->Swap(&nodes);
  for (auto &t : r.added)
    *mg.add_initializer() = std::move(t);
  return true;
}

} // namespace quarry::onnx_io
