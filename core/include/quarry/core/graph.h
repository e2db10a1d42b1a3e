//===- graph.h - The operator DAG ------------------------------*- C++ -*-===//
//
// A Graph is a list of nodes in topological order: a node may only use
// values of nodes added before it, so every Graph is acyclic by
// construction. Variables (input, weight) are nodes too, named and with an
// optional shape; rule patterns leave shapes out. When every input of a new
// node has a known type, shape inference runs at once, so a bad graph fails
// where it is built.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/op_registry.h"

#include <compare>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace quarry {

/// One output of one node.
struct ValueRef {
  int32_t node = -1;
  int32_t output = 0;
  friend auto operator<=>(const ValueRef &, const ValueRef &) = default;
};

struct Node {
  OpKind kind = OpKind::Input;
  Attrs attrs;
  std::vector<ValueRef> inputs;
  /// A variable's name; for other nodes an optional name for printing.
  std::string name;
  int num_outputs = 1;
  /// Output types; empty while unknown (patterns without shapes).
  std::vector<TensorType> types;

  bool is_variable() const { return op_info(kind).traits.variable; }
};

/// Attributes for `kind` from its defaults and (name, value) overrides;
/// throws quarry::Error on an unknown name or a bad value.
Attrs make_attrs(OpKind kind,
                 std::initializer_list<std::pair<std::string_view, AttrValue>>
                     overrides = {});

class Graph {
public:
  /// Adds a graph input (activation) or weight. Names are unique.
  ValueRef input(const std::string &name,
                 const std::optional<Shape> &shape = std::nullopt);
  ValueRef weight(const std::string &name,
                  const std::optional<Shape> &shape = std::nullopt);

  /// Adds an operator node and returns its outputs. Checks arity and
  /// attributes, and infers types when the inputs' types are known.
  std::vector<ValueRef> add(OpKind kind, Attrs attrs,
                            std::vector<ValueRef> inputs,
                            std::string name = {});
  /// add() for single-output operators.
  ValueRef add1(OpKind kind, Attrs attrs, std::vector<ValueRef> inputs,
                std::string name = {});
  /// add() with default attributes.
  ValueRef add1(OpKind kind, std::vector<ValueRef> inputs) {
    return add1(kind, make_attrs(kind), std::move(inputs));
  }

  /// Sets an operator node's display name (comma-joined for several
  /// outputs). Names never change the computation.
  void set_name(int32_t id, std::string name);

  /// Marks a value as a graph output (in order; a value may appear twice).
  void mark_output(ValueRef v);

  /// Drops every node after the first `num_nodes` (an importer taking back
  /// what a failed step added); no graph output may be among them.
  void truncate(int num_nodes);

  const std::vector<Node> &nodes() const { return nodes_; }
  const Node &node(int32_t id) const { return nodes_.at(id); }
  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  const std::vector<ValueRef> &outputs() const { return outputs_; }

  /// The value's type, or nullptr when unknown.
  const TensorType *type(ValueRef v) const;
  /// Node id of the variable called `name`, or -1.
  int32_t find_variable(std::string_view name) const;
  /// Number of uses of each node's outputs (as operands or graph outputs).
  std::vector<int> use_counts() const;
  /// Nodes that reach a graph output, as a mask by node id.
  std::vector<bool> live_nodes() const;
  /// Per node: a weight, a constant, or computed from those only (never
  /// through an uninterpreted operator). A backend computes these ahead of
  /// the first run; a cost model charges nothing for them.
  std::vector<bool> static_nodes() const;
  /// Number of operator (non-variable) nodes.
  int num_operators() const;

  /// A hash of the computation: equal for structurally equal graphs.
  /// Variables hash by name and shape; node ids and names do not matter.
  uint64_t hash() const;

private:
  ValueRef add_variable(OpKind kind, const std::string &name,
                        const std::optional<Shape> &shape);
  void check_ref(ValueRef v, const char *what) const;

  std::vector<Node> nodes_;
  std::vector<ValueRef> outputs_;
  /// Variable name -> node id: rebuilding a graph with hundreds of weights
  /// (every rewrite the optimizer tries) must not search all nodes per name.
  std::map<std::string, int32_t, std::less<>> variables_;
};

/// Graph::hash() in parts, for hashing a graph that is not built (a
/// rewrite previewed on its host): a node's hash starts from its own
/// (kind, a variable's name, attributes) and takes in each operand's node
/// hash and output in order; the graph's starts from its output count,
/// takes in each output the same way, and XORs in variable_hash() of every
/// variable.
uint64_t node_hash_seed(const Node &n);
uint64_t hash_operand(uint64_t h, uint64_t operand_node_hash, int32_t output);
uint64_t graph_hash_seed(size_t num_outputs);
uint64_t variable_hash(uint64_t variable_node_hash);

/// Adds to `g` a variable like `n` (a variable of another graph): an input
/// or weight of its name, with its shape when it has one.
ValueRef add_variable_like(Graph &g, const Node &n);

/// `g` rebuilt with each operator node's attributes as `attrs_of` gives
/// them (node ids, names, operands and outputs as they were); the types
/// are inferred again, so attributes that change them must still fit.
Graph with_attrs(const Graph &g,
                 const std::function<Attrs(const Node &)> &attrs_of);

/// The same computation: the same variables (names, kinds, shapes) and
/// outputs computed by the same operators with the same attributes from the
/// same operands, whatever the node order, ids or value names.
bool structurally_equal(const Graph &a, const Graph &b);

} // namespace quarry
