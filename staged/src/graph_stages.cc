//===- graph_stages.cc - A graph cut at its uninterpreted operators -------===//
#include "quarry/staged/graph_stages.h"

#include <algorithm>
#include <map>
#include <set>

namespace quarry::staged {

namespace {

bool is_opaque(const Node &n) { return n.kind == OpKind::Opaque; }

/// A name for the input standing for `v`, taken by no variable of `g`.
std::string read_name(const Graph &g, ValueRef v) {
  std::string name =
      "stage_" + std::to_string(v.node) + "_" + std::to_string(v.output);
  while (g.find_variable(name) >= 0)
    name += "_";
  return name;
}

} // namespace

std::vector<GraphStage> split_at_opaque(const Graph &g) {
  const std::vector<bool> live = g.live_nodes();
  const int count = g.num_nodes();
  // A node's stage is the latest stage of what it reads; what an opaque
  // operator computes is there for the stage after its own.
  std::vector<int> stage(count, 0), ready(count, 0);
  int last = 0;
  for (int32_t id = 0; id < count; ++id) {
    if (!live[id])
      continue;
    const Node &n = g.node(id);
    int s = 0;
    for (ValueRef v : n.inputs)
      s = std::max(s, ready[v.node]);
    stage[id] = s;
    ready[id] = is_opaque(n) ? s + 1 : s;
    last = std::max(last, s);
  }
  std::vector<GraphStage> stages(last + 1);

  // What a stage computes for others: values of its operators read by
  // another stage's operators, by an opaque operator, or as graph outputs.
  auto computed_in_stage = [&](ValueRef v) {
    const Node &p = g.node(v.node);
    return !p.is_variable() && !is_opaque(p);
  };
  std::vector<std::set<ValueRef>> exported(stages.size());
  for (int32_t id = 0; id < count; ++id) {
    if (!live[id] || g.node(id).is_variable())
      continue;
    const Node &n = g.node(id);
    for (ValueRef v : n.inputs)
      if (computed_in_stage(v) && (is_opaque(n) || stage[v.node] != stage[id]))
        exported[stage[v.node]].insert(v);
  }
  for (ValueRef v : g.outputs())
    if (computed_in_stage(v))
      exported[stage[v.node]].insert(v);

  for (size_t k = 0; k < stages.size(); ++k) {
    GraphStage &st = stages[k];
    std::map<ValueRef, ValueRef> here;
    auto operand = [&](ValueRef v) {
      if (auto it = here.find(v); it != here.end())
        return it->second;
      const Node &p = g.node(v.node);
      const Shape &shape = g.type(v)->shape;
      ValueRef r;
      if (p.kind == OpKind::Input)
        r = st.graph.input(p.name, shape);
      else if (p.kind == OpKind::Weight)
        r = st.graph.weight(p.name, shape);
      else {
        st.read_names.push_back(read_name(g, v));
        st.reads.push_back(v);
        r = st.graph.input(st.read_names.back(), shape);
      }
      here[v] = r;
      return r;
    };
    for (int32_t id = 0; id < count; ++id) {
      const Node &n = g.node(id);
      if (!live[id] || n.is_variable() || stage[id] != static_cast<int>(k))
        continue;
      if (is_opaque(n)) {
        st.then_opaque.push_back(id);
        continue;
      }
      std::vector<ValueRef> in;
      for (ValueRef v : n.inputs)
        in.push_back(operand(v));
      const std::vector<ValueRef> out =
          st.graph.add(n.kind, n.attrs, std::move(in), n.name);
      for (size_t o = 0; o < out.size(); ++o)
        here[{id, static_cast<int32_t>(o)}] = out[o];
    }
    for (ValueRef v : exported[k]) {
      st.graph.mark_output(here.at(v));
      st.computes.push_back(v);
    }
  }
  return stages;
}

} // namespace quarry::staged
