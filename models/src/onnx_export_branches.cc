//===- onnx_export_branches.cc - Choices by Where written as If -----------===//
#include "onnx_export_branches.h"

#include "onnx_kept.h"
#include "onnx_old_forms.h"

#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace quarry::onnx_io {

namespace {

/// A node reading a value: as input `input`, or from inside one of its
/// subgraphs (-1).
struct Use {
  int node;
  int input;
};

/// The Wheres on one condition, and the nodes each side alone reads.
struct Choice {
  std::string cond;
  std::vector<int> wheres;
  std::set<int> side[2]; ///< then, else
};

class Rewriter {
public:
  explicit Rewriter(onnx::GraphProto &g) : g_(g) {}

  int run(const std::map<std::string, onnx::TypeProto> &types) {
    types_ = &types;
    std::vector<Choice> choices = find_choices();
    if (choices.empty())
      return 0;
    index_uses();
    removed_.assign(static_cast<size_t>(g_.node_size()), false);
    std::map<int, onnx::NodeProto> ifs; // at the last Where's place
    for (Choice &c : choices) {
      if (!take_sides(c))
        continue;
      ifs.emplace(c.wheres.back(), make_if(c));
      for (int s = 0; s < 2; ++s)
        for (int i : c.side[s])
          removed_[static_cast<size_t>(i)] = true;
      for (int w : c.wheres)
        removed_[static_cast<size_t>(w)] = true;
    }
    if (ifs.empty())
      return 0;
    google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
    std::set<std::string> moved;
    for (int i = 0; i < g_.node_size(); ++i) {
      if (auto it = ifs.find(i); it != ifs.end())
        *nodes.Add() = std::move(it->second);
      else if (!removed_[static_cast<size_t>(i)])
        *nodes.Add() = g_.node(i);
      else
        moved.insert(g_.node(i).output().begin(), g_.node(i).output().end());
    }
    *g_.mutable_node() = std::move(nodes);
    // Types of what moved into a branch no longer describe the main graph.
    google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> infos;
    for (const auto &vi : g_.value_info())
      if (!moved.count(vi.name()))
        *infos.Add() = vi;
    *g_.mutable_value_info() = std::move(infos);
    return static_cast<int>(ifs.size());
  }

private:
  /// The type of `name` when inference fixed its shape, else nullptr.
  const onnx::TypeProto *fixed_type(const std::string &name) const {
    auto it = types_->find(name);
    if (it == types_->end())
      return nullptr;
    int32_t elem = 0;
    Shape shape;
    return static_tensor_type(it->second, elem, shape) ? &it->second : nullptr;
  }

  bool single_value(const std::string &name) const {
    const onnx::TypeProto *t = fixed_type(name);
    if (!t)
      return false;
    int64_t n = 1;
    for (const auto &d : t->tensor_type().shape().dim())
      n *= d.dim_value();
    return n == 1;
  }

  bool same_type(const std::string &a, const std::string &b) const {
    const onnx::TypeProto *ta = fixed_type(a), *tb = fixed_type(b);
    return ta && tb && ta->SerializeAsString() == tb->SerializeAsString();
  }

  std::vector<Choice> find_choices() {
    std::vector<Choice> out;
    std::map<std::string, size_t> by_cond;
    for (int i = 0; i < g_.node_size(); ++i) {
      const onnx::NodeProto &n = g_.node(i);
      if (n.op_type() != "Where" || !default_domain(n.domain()) ||
          n.input_size() != 3 || n.output_size() != 1 ||
          !single_value(n.input(0)) || !same_type(n.input(1), n.output(0)) ||
          !same_type(n.input(2), n.output(0)))
        continue;
      auto [it, added] = by_cond.emplace(n.input(0), out.size());
      if (added)
        out.push_back({n.input(0), {}, {}});
      out[it->second].wheres.push_back(i);
    }
    return out;
  }

  void index_uses() {
    for (int i = 0; i < g_.node_size(); ++i) {
      const onnx::NodeProto &n = g_.node(i);
      for (int k = 0; k < n.input_size(); ++k)
        uses_[n.input(k)].push_back({i, k});
      for (const std::string &outer : outer_references(n))
        uses_[outer].push_back({i, -1});
    }
    for (const auto &vi : g_.output())
      graph_outputs_.insert(vi.name());
  }

  /// Fills each side of `c` with the nodes only it reads; false when the
  /// choice is to stay a Where.
  bool take_sides(Choice &c) const {
    const std::set<int> wheres(c.wheres.begin(), c.wheres.end());
    for (int w : c.wheres)
      if (removed_[static_cast<size_t>(w)])
        return false; // inside an earlier choice's branch
    for (int s = 0; s < 2; ++s) {
      const int operand = s == 0 ? 1 : 2;
      // Readers come after what they read: walking back, a node is
      // decided after all that read it.
      for (int i = c.wheres.back() - 1; i >= 0; --i) {
        const onnx::NodeProto &n = g_.node(i);
        if (removed_[static_cast<size_t>(i)] || wheres.count(i) ||
            n.output_size() == 0)
          continue;
        bool read = false, only = true;
        for (const std::string &out : n.output()) {
          if (graph_outputs_.count(out))
            only = false;
          auto u = uses_.find(out);
          if (u == uses_.end())
            continue;
          for (const Use &use : u->second) {
            read = true;
            only = only && (c.side[s].count(use.node) ||
                            (wheres.count(use.node) && use.input == operand));
          }
        }
        if (read && only)
          c.side[s].insert(i);
      }
    }
    if (c.side[0].empty() && c.side[1].empty())
      return false; // nothing to leave uncomputed
    // The If stands where the last Where does: nothing between the first
    // and the last may read what the Wheres compute.
    std::set<std::string> results;
    for (int w : c.wheres)
      results.insert(g_.node(w).output(0));
    for (int i = c.wheres.front() + 1; i < c.wheres.back(); ++i) {
      if (wheres.count(i) || c.side[0].count(i) || c.side[1].count(i))
        continue;
      for (const std::string &name : names_read(g_.node(i)))
        if (results.count(name))
          return false;
    }
    return true;
  }

  /// One branch: the side's nodes in order, then each Where's operand as
  /// an output (through an Identity where the branch does not compute it).
  onnx::GraphProto branch(const Choice &c, int s) const {
    onnx::GraphProto b;
    b.set_name(c.cond + (s == 0 ? "_then" : "_else"));
    std::set<std::string> computed;
    for (int i : c.side[s]) {
      *b.add_node() = g_.node(i);
      computed.insert(g_.node(i).output().begin(), g_.node(i).output().end());
    }
    for (int w : c.wheres) {
      const onnx::NodeProto &where = g_.node(w);
      std::string value = where.input(s == 0 ? 1 : 2);
      if (!computed.count(value)) {
        const std::string copy =
            where.output(0) + b.name().substr(c.cond.size());
        auto *id = b.add_node();
        id->set_op_type("Identity");
        id->set_name(copy);
        id->add_input(value);
        id->add_output(copy);
        value = copy;
      }
      auto *out = b.add_output();
      out->set_name(value);
      *out->mutable_type() = *fixed_type(where.output(0));
    }
    return b;
  }

  onnx::NodeProto make_if(const Choice &c) const {
    onnx::NodeProto n;
    n.set_op_type("If");
    n.set_name(g_.node(c.wheres.front()).name());
    n.add_input(c.cond);
    for (int w : c.wheres)
      n.add_output(g_.node(w).output(0));
    for (int s = 0; s < 2; ++s) {
      auto *a = n.add_attribute();
      a->set_name(s == 0 ? "then_branch" : "else_branch");
      a->set_type(onnx::AttributeProto::GRAPH);
      *a->mutable_g() = branch(c, s);
    }
    return n;
  }

  onnx::GraphProto &g_;
  const std::map<std::string, onnx::TypeProto> *types_ = nullptr;
  std::map<std::string, std::vector<Use>> uses_;
  std::set<std::string> graph_outputs_;
  std::vector<bool> removed_;
};

/// What ONNX's inference types in the skeleton of `model`.
std::map<std::string, onnx::TypeProto>
inferred_types(const onnx::ModelProto &m) {
  onnx::ModelProto skel = skeleton(m);
  onnx::shape_inference::InferShapes(skel);
  std::map<std::string, onnx::TypeProto> out;
  const onnx::GraphProto &g = skel.graph();
  for (const auto *vis : {&g.input(), &g.value_info(), &g.output()})
    for (const auto &vi : *vis)
      out.emplace(vi.name(), vi.type());
  return out;
}

int64_t onnx_opset_of(const onnx::ModelProto &m) {
  for (const auto &op : m.opset_import())
    if (default_domain(op.domain()))
      return op.version();
  return 0;
}

} // namespace

int wheres_as_ifs(onnx::ModelProto &model) {
  const auto &nodes_in = model.graph().node();
  if (std::none_of(
          nodes_in.begin(), nodes_in.end(),
          [](const onnx::NodeProto &n) { return n.op_type() == "Where"; }))
    return 0; // nothing to infer types for
  std::map<std::string, onnx::TypeProto> types;
  try {
    types = inferred_types(model);
  } catch (const std::exception &) {
    return 0;
  }
  onnx::GraphProto &g = *model.mutable_graph();
  const auto nodes = g.node();
  const auto infos = g.value_info();
  const int made = Rewriter(g).run(types);
  if (made == 0 || onnx_opset_of(model) > 17)
    return made;
  try {
    onnx::checker::check_model(skeleton(model));
  } catch (const std::exception &) {
    *g.mutable_node() = nodes;
    *g.mutable_value_info() = infos;
    return 0;
  }
  return made;
}

} // namespace quarry::onnx_io
