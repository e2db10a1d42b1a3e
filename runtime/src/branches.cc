//===- branches.cc - Work only one side of a scalar choice needs ----------===//
#include "branches.h"

#include <algorithm>
#include <set>

namespace quarry::runtime {

namespace {

struct Use {
  int32_t node;
  size_t operand;
};

} // namespace

std::map<int32_t, std::vector<BranchGuard>> branch_guards(const Graph &g,
                                                          const Plan &p) {
  std::map<int32_t, std::vector<Use>> uses;
  std::set<ValueRef> conds;
  for (int32_t id : p.steps) {
    const Node &n = g.node(id);
    for (size_t i = 0; i < n.inputs.size(); ++i)
      uses[n.inputs[i].node].push_back({id, i});
    if (n.kind == OpKind::Where && !p.value(n.inputs[0]).is_static &&
        p.value(n.inputs[0]).type.shape.numel() == 1)
      conds.insert(n.inputs[0]);
  }
  std::set<int32_t> outputs;
  for (ValueRef v : g.outputs())
    outputs.insert(v.node);
  std::map<int32_t, std::vector<BranchGuard>> guards;
  for (ValueRef c : conds)
    for (const bool when : {true, false}) {
      // Users come after what they read: walking the steps backwards, a
      // node is decided after every node that reads it.
      const size_t arm = when ? 1 : 2;
      std::set<int32_t> needed_only_there;
      for (auto it = p.steps.rbegin(); it != p.steps.rend(); ++it) {
        const int32_t id = *it;
        const auto u = uses.find(id);
        if (u == uses.end() || outputs.count(id))
          continue;
        const bool only = std::all_of(
            u->second.begin(), u->second.end(), [&](const Use &use) {
              const Node &m = g.node(use.node);
              return needed_only_there.count(use.node) ||
                     (m.kind == OpKind::Where && m.inputs[0] == c &&
                      use.operand == arm);
            });
        if (only) {
          needed_only_there.insert(id);
          guards[id].push_back({c, when});
        }
      }
    }
  return guards;
}

} // namespace quarry::runtime
