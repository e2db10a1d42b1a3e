//===- splice.cc - Replacing values of a graph by a new subgraph ----------===//
//
// The new graph is emitted depth-first from the host's outputs. Host nodes
// and pattern nodes share one walk; a node met again while its operands are
// still being emitted closes a cycle, and the splice is refused.
//
//===----------------------------------------------------------------------===//
#include "quarry/rewrite/splice.h"

#include "quarry/core/error.h"
#include "quarry/rewrite/constant_shape.h"

namespace quarry::rewrite {

namespace {

struct Refused {};

enum class Mark : uint8_t { None, Active, Done };

class Emitter {
public:
  Emitter(const Graph &host, const Splice &s)
      : host_(host), s_(s), host_ids_(host.num_nodes(), -1),
        host_marks_(host.num_nodes(), Mark::None),
        pat_ids_(s.pattern->num_nodes(), -1),
        pat_marks_(s.pattern->num_nodes(), Mark::None) {
    for (size_t i = 0; i < s.replaced.size(); ++i)
      replaced_.emplace(s.replaced[i], s.pattern->outputs().at(i));
  }

  Graph run() {
    for (int32_t id = 0; id < host_.num_nodes(); ++id)
      if (host_.node(id).kind == OpKind::Input)
        emit_host(id);
    for (ValueRef v : host_.outputs())
      out_.mark_output(host_value(v));
    for (size_t i = 0; i < s_.replaced.size(); ++i) {
      const TensorType *was = host_.type(s_.replaced[i]);
      const TensorType *now =
          out_.type(pattern_value(s_.pattern->outputs()[i]));
      if (!was || !now || was->shape != now->shape)
        throw Refused{};
      keep_name(s_.replaced[i], pattern_value(s_.pattern->outputs()[i]));
    }
    return std::move(out_);
  }

private:
  /// The value that replaces host value `was` takes its name (an imported
  /// model's name for it) where nothing else holds it: the same value,
  /// computed anew.
  void keep_name(ValueRef was, ValueRef now) {
    const Node &old = host_.node(was.node);
    const Node &made = out_.node(now.node);
    if (old.name.empty() || old.num_outputs != 1 ||
        host_marks_[was.node] == Mark::Done || made.is_variable() ||
        made.num_outputs != 1 || !made.name.empty())
      return;
    out_.set_name(now.node, old.name);
  }

  ValueRef host_value(ValueRef v) {
    if (auto it = replaced_.find(v); it != replaced_.end())
      return pattern_value(it->second);
    return {emit_host(v.node), v.output};
  }

  int32_t emit_host(int32_t id) {
    if (host_marks_[id] == Mark::Done)
      return host_ids_[id];
    if (host_marks_[id] == Mark::Active)
      throw Refused{};
    host_marks_[id] = Mark::Active;
    const Node &n = host_.node(id);
    int32_t made;
    if (n.is_variable()) {
      made = add_variable(n.kind, n.name,
                          n.types.empty() ? std::nullopt
                                          : std::optional(n.types[0].shape));
    } else {
      std::vector<ValueRef> in;
      for (ValueRef v : n.inputs)
        in.push_back(host_value(v));
      made = out_.add(n.kind, n.attrs, std::move(in), n.name)[0].node;
    }
    host_ids_[id] = made;
    host_marks_[id] = Mark::Done;
    return made;
  }

  int32_t add_variable(OpKind kind, const std::string &name,
                       const std::optional<Shape> &shape) {
    return (kind == OpKind::Weight ? out_.weight(name, shape)
                                   : out_.input(name, shape))
        .node;
  }

  ValueRef pattern_value(ValueRef v) {
    const Node &n = s_.pattern->node(v.node);
    if (n.is_variable()) {
      if (auto it = s_.bindings.find(n.name); it != s_.bindings.end())
        return host_value(it->second);
      auto shape = s_.new_variables.find(n.name);
      if (shape == s_.new_variables.end())
        throw Refused{};
      if (pat_ids_[v.node] < 0)
        pat_ids_[v.node] = add_variable(n.kind, n.name, shape->second);
      return {pat_ids_[v.node], 0};
    }
    return {emit_pattern(v.node, nullptr), v.output};
  }

  /// `shape` fixes a constant's shape when its user knows it.
  int32_t emit_pattern(int32_t id, const std::optional<Shape> *shape) {
    if (pat_marks_[id] == Mark::Done)
      return pat_ids_[id];
    if (pat_marks_[id] == Mark::Active)
      throw Refused{};
    const Node &n = s_.pattern->node(id);
    const auto &traits = op_info(n.kind).traits;
    Attrs attrs = n.attrs;
    if (traits.constant && n.types.empty()) {
      if (!shape || !*shape)
        throw Refused{};
      const int idx = find_attr(op_info(n.kind).attrs, "shape");
      attrs.set(idx, (*shape)->dims);
    }
    pat_marks_[id] = Mark::Active;
    // Operands other than shapeless constants first, so a constant can take
    // its shape from them.
    std::vector<ValueRef> in(n.inputs.size());
    std::vector<int> deferred;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const Node &op = s_.pattern->node(n.inputs[i].node);
      if (op_info(op.kind).traits.constant && op.types.empty() &&
          pat_marks_[n.inputs[i].node] != Mark::Done)
        deferred.push_back(static_cast<int>(i));
      else
        in[i] = pattern_value(n.inputs[i]);
    }
    for (int i : deferred) {
      std::vector<const TensorType *> types;
      for (size_t j = 0; j < in.size(); ++j)
        types.push_back(in[j].node >= 0 ? out_.type(in[j]) : nullptr);
      const Node &c = s_.pattern->node(n.inputs[i].node);
      const std::optional<Shape> cs =
          constant_shape(c.kind, c.attrs, n.kind, i, types);
      in[i] = {emit_pattern(n.inputs[i].node, &cs), n.inputs[i].output};
    }
    const int32_t made = out_.add(n.kind, attrs, std::move(in))[0].node;
    pat_ids_[id] = made;
    pat_marks_[id] = Mark::Done;
    return made;
  }

  const Graph &host_;
  const Splice &s_;
  Graph out_;
  std::map<ValueRef, ValueRef> replaced_;
  std::vector<int32_t> host_ids_;
  std::vector<Mark> host_marks_;
  std::vector<int32_t> pat_ids_;
  std::vector<Mark> pat_marks_;
};

} // namespace

std::optional<Graph> splice(const Graph &host, const Splice &s) {
  try {
    return Emitter(host, s).run();
  } catch (const Refused &) {
    return std::nullopt;
  } catch (const Error &) {
    // A shape the target's operators do not accept: the rule's shape
    // conditions do not hold here.
    return std::nullopt;
  }
}

} // namespace quarry::rewrite
