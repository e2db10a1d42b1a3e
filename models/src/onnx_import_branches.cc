//===- onnx_import_branches.cc - If nodes in the graph --------------------===//
//
// An If whose condition is constant is the branch it takes, node by node;
// one whose condition is computed becomes both branches and a `where` per
// output, where the branches' outputs are float tensors of one shape. Any
// other If is kept (onnx_import_kept.cc).
//
//===----------------------------------------------------------------------===//
#include "onnx_importer.h"

namespace quarry::onnx_io {

void Importer::inline_branch(
    const std::map<std::string, Handler, std::less<>> &table) {
  const onnx::NodeProto &n = *node_;
  const Constant &cond = *const_in(0);
  if (cond.ints.size() != 1)
    fail("the condition must hold one value, not " + cond.shape.str());
  const onnx::AttributeProto *branch =
      attr(cond.ints[0] ? "then_branch" : "else_branch");
  if (!branch || !branch->has_g())
    fail("the branch taken has no graph");
  const onnx::GraphProto &g = branch->g();
  if (g.output_size() != n.output_size())
    fail("the branch taken has " + std::to_string(g.output_size()) +
         " outputs for the node's " + std::to_string(n.output_size()));
  import_branch(g, table);
  for (int k = 0; k < n.output_size(); ++k)
    if (!alias_value(g.output(k).name(), n.output(k)))
      fail("the branch taken never computes its output '" + g.output(k).name() +
           "'");
}

bool Importer::alias_value(const std::string &from, const std::string &to) {
  if (to.empty())
    return true;
  if (auto v = values_.find(from); v != values_.end())
    values_[to] = v->second;
  else if (const Constant *c = constants_.find(from))
    constants_.set(to, *c);
  else if (untyped_.count(from)) {
    onnx::NodeProto rename;
    rename.set_op_type("Identity");
    rename.set_name(to);
    rename.add_input(from);
    rename.add_output(to);
    *tail().add_node() = std::move(rename);
    untyped_.insert(to);
  } else
    return false;
  if (auto e = elem_.find(from); e != elem_.end())
    elem_[to] = e->second;
  return true;
}

bool Importer::attempt(const std::function<void(int num_nodes)> &step) {
  const onnx::NodeProto *node = node_;
  const int before = g_.num_nodes();
  const onnx::ModelProto kept = kept_;
  const auto values = values_;
  const auto constants = constants_;
  const auto untyped = untyped_;
  const auto tail_reads = tail_reads_;
  const auto held = held_;
  const auto held_casts = held_casts_;
  const auto elem = elem_;
  const auto kept_constants = kept_constants_;
  const auto taken = taken_;
  try {
    step(before);
    return true;
  } catch (const Error &) {
    node_ = node;
    g_.truncate(before);
    for (auto it = weights_.begin(); it != weights_.end();)
      it = taken.count(it->first) ? std::next(it) : weights_.erase(it);
    kept_ = kept;
    values_ = values;
    constants_ = constants;
    untyped_ = untyped;
    tail_reads_ = tail_reads;
    held_ = held;
    held_casts_ = held_casts;
    elem_ = elem;
    kept_constants_ = kept_constants;
    taken_ = taken;
    return false;
  }
}

void Importer::import_branch(
    const onnx::GraphProto &g,
    const std::map<std::string, Handler, std::less<>> &table) {
  const onnx::NodeProto *outer = node_;
  for (const auto &init : g.initializer()) {
    // What quarry cannot decode (another type, too few values) is for
    // kept nodes to read.
    bool read = false;
    if (decodable(init.data_type())) {
      try {
        constants_.add_unread(init);
        read = true;
      } catch (const Error &) {
      }
    }
    if (!read)
      undecoded_[init.name()] = &init;
  }
  for (const auto &inner : g.node()) {
    node_ = &inner;
    const int before = g_.num_nodes();
    import_node(table);
    // Named as in the branch, so that export gives the names back, in the
    // main graph or in the If it writes again (onnx_export_branches.h).
    name_outputs(inner, before);
  }
  node_ = outer;
}

bool Importer::lower_branches(
    const std::map<std::string, Handler, std::less<>> &table) {
  const onnx::NodeProto &n = *node_;
  if (!has_input(0) || !values_.count(n.input(0)) || elem_.count(n.input(0)))
    return false;
  return attempt([&](int before) {
    const ValueRef cond = reshape_to(*this, value(n.input(0)), {});
    if (cond.node >= before) {
      // The model has no name for its condition as a scalar: it goes out
      // named after the condition, not as a value of quarry's.
      const std::string scalar = n.input(0) + "_scalar";
      taken_.erase(g_.node(cond.node).name);
      const std::string q = fresh_name(scalar);
      g_.set_name(cond.node, q);
      record_names(q, {scalar}, "");
    }
    std::vector<ValueRef> outs[2];
    std::vector<bool> bool_outs[2];
    for (int b = 0; b < 2; ++b) {
      const onnx::AttributeProto *branch =
          attr(b == 0 ? "then_branch" : "else_branch");
      if (!branch || !branch->has_g() ||
          branch->g().output_size() != n.output_size())
        throw Error("a branch's outputs do not match the node's");
      const onnx::GraphProto &g = branch->g();
      import_branch(g, table);
      for (const auto &o : g.output()) {
        if (untyped_.count(o.name()) || elem_.count(o.name()))
          throw Error("a branch output is not a float tensor");
        outs[b].push_back(in_const_as_value(o.name()));
        bool_outs[b].push_back(
            (held_.count(o.name()) &&
             held_.at(o.name()) == onnx::TensorProto::BOOL) ||
            (constants_.contains(o.name()) &&
             constants_.elem(o.name()) == onnx::TensorProto::BOOL));
      }
    }
    for (int k = 0; k < n.output_size(); ++k) {
      if (shape(outs[0][k]) != shape(outs[1][k]))
        throw Error("the branches' outputs differ in shape");
      const ValueRef v = add(OpKind::Where, {cond, outs[0][k], outs[1][k]});
      set_output(k, v);
      if (bool_outs[0][k] && bool_outs[1][k])
        set_bool_output(k);
    }
  });
}

} // namespace quarry::onnx_io
