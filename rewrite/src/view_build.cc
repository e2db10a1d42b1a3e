//===- view_build.cc - The graph a RewriteView sees, made
//------------------===//
//
// The graph is emitted depth-first from the host's inputs and outputs over
// the overlay, so that a rewrite keeps the host's order wherever it changes
// nothing; Graph::add() types every node again on the way. A node met
// again while its operands are still being emitted closes a cycle.
//
//===----------------------------------------------------------------------===//
#include "quarry/core/error.h"
#include "quarry/rewrite/rewrite_view.h"
#include "view_scratch.h"

namespace quarry::rewrite {

namespace {
struct Refused {};
enum class Mark : uint8_t { None, Active, Done };
} // namespace

class ViewEmitter {
public:
  explicit ViewEmitter(const RewriteView &v)
      : v_(v), ids_(v.n_ + v.d_.made.size(), -1),
        marks_(ids_.size(), Mark::None) {}

  Graph run() {
    const Graph &host = v_.g_;
    for (int32_t id = 0; id < host.num_nodes(); ++id)
      if (host.node(id).kind == OpKind::Input)
        emit(id);
    for (ValueRef o : host.outputs())
      out_.mark_output(value(v_.redirect(o)));
    // Every replacement is made, whether read or not.
    for (size_t i = 0; i < v_.s_.replaced.size(); ++i) {
      const ValueRef was = v_.s_.replaced[i];
      const ValueRef now = value(v_.d_.targets[i]);
      const TensorType *a = host.type(was), *b = out_.type(now);
      if (!a || !b || a->shape != b->shape)
        throw Refused{};
      keep_name(was, now);
    }
    return std::move(out_);
  }

private:
  ValueRef value(ValueRef v) { return {emit(v.node), v.output}; }

  /// A pattern constant that takes its shape from its reader: emitted after
  /// the reader's other operands, as Graph::add() would want it.
  bool shaped_by_reader(int32_t id) const {
    if (!v_.is_new(id) || marks_[id] == Mark::Done)
      return false;
    const Node &p = v_.pat_.node(id - v_.n_);
    return op_info(p.kind).traits.constant && p.types.empty();
  }

  int32_t emit(int32_t id) {
    if (marks_[id] == Mark::Done)
      return ids_[id];
    if (marks_[id] == Mark::Active)
      throw Refused{};
    marks_[id] = Mark::Active;
    const Node &n = v_.node(id);
    int32_t made;
    if (n.is_variable()) {
      made = add_variable_like(out_, n).node;
    } else {
      std::vector<ValueRef> in(n.inputs.size());
      for (size_t k = 0; k < in.size(); ++k)
        if (!shaped_by_reader(n.inputs[k].node))
          in[k] = value(n.inputs[k]);
      for (size_t k = 0; k < in.size(); ++k)
        if (in[k].node < 0)
          in[k] = value(n.inputs[k]);
      made = out_.add(n.kind, n.attrs, std::move(in), n.name)[0].node;
    }
    ids_[id] = made;
    marks_[id] = Mark::Done;
    return made;
  }

  /// The value that replaces host value `was` takes its name (an imported
  /// model's name for it) where nothing else holds it: the same value,
  /// computed anew.
  void keep_name(ValueRef was, ValueRef now) {
    const Node &old = v_.g_.node(was.node);
    const Node &made = out_.node(now.node);
    if (old.name.empty() || old.num_outputs != 1 ||
        marks_[was.node] == Mark::Done || made.is_variable() ||
        made.num_outputs != 1 || !made.name.empty())
      return;
    out_.set_name(now.node, old.name);
  }

  const RewriteView &v_;
  Graph out_;
  std::vector<int32_t> ids_;
  std::vector<Mark> marks_;
};

std::optional<Graph> RewriteView::build() const {
  if (outcome_ == Outcome::Refused)
    return std::nullopt;
  try {
    return ViewEmitter(*this).run();
  } catch (const Refused &) {
    return std::nullopt;
  } catch (const Error &) {
    // A type downstream that no longer infers (a concat boundary a split
    // cut at moved).
    return std::nullopt;
  }
}

std::optional<Graph> splice(const Graph &host, const Splice &s) {
  const RewriteHost indexed(host, RewriteHost::Index::Build);
  ViewScratch scratch;
  return RewriteView(indexed, s, scratch).build();
}

} // namespace quarry::rewrite
