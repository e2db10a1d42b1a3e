//===- operator_counts.cc - Rules per operator kind -----------------------===//
//
// A rule counts once for each operator kind it uses, whether in its source
// or its target: the question is "how many rules could touch a conv2d".
//
//===----------------------------------------------------------------------===//
#include "read_stages.h"

#include "quarry/rulepack/rule_pack_io.h"

#include <array>

namespace quarry::report {

namespace {

void mark_kinds(const Graph &g, std::array<bool, kNumOps> &used) {
  for (const Node &n : g.nodes())
    if (!n.is_variable())
      used[static_cast<size_t>(n.kind)] = true;
}

} // namespace

int64_t count_operators(const std::string &path, bool proved,
                        std::vector<OperatorRuleCount> &counts) {
  const RulePack pack = read_rule_pack(path);
  std::array<int64_t, kNumOps> per_kind{};
  for (const Rule &r : pack.rules) {
    std::array<bool, kNumOps> used{};
    mark_kinds(r.source, used);
    mark_kinds(r.target, used);
    for (size_t k = 0; k < used.size(); ++k)
      per_kind[k] += used[k];
  }
  // Merge into `counts`, kept in registry order.
  std::vector<OperatorRuleCount> merged;
  for (size_t k = 0; k < per_kind.size(); ++k) {
    const std::string name(op_name(static_cast<OpKind>(k)));
    OperatorRuleCount row{name, 0, 0};
    for (const OperatorRuleCount &c : counts)
      if (c.op == name)
        row = c;
    (proved ? row.proved : row.candidates) += per_kind[k];
    if (row.candidates || row.proved)
      merged.push_back(row);
  }
  counts = std::move(merged);
  return static_cast<int64_t>(pack.rules.size());
}

} // namespace quarry::report
