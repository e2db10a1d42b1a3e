//===- renaming.cc - Candidates that differ only in variable names --------===//
#include "quarry/dedupe/renaming.h"

#include "quarry/core/op_registry.h"
#include "quarry/dedupe/pruning.h"
#include "quarry/enumerate/enumerator.h"

#include <algorithm>
#include <numeric>

namespace quarry {

namespace {

/// `r` with variable slot v read as slot `to[v]`; a commutative operator's
/// two operands in increasing slot order, as the enumerator writes them.
GraphRecord renamed(const GenConfig &cfg, const GraphRecord &r,
                    const std::vector<int> &to) {
  const int nvars = static_cast<int>(cfg.variables.size());
  GraphRecord out = r;
  for (int i = 0; i < out.num_ops; ++i) {
    GenOpRef &op = out.ops[i];
    const GenOp &g = cfg.ops[op.choice];
    for (int a = 0; a < g.arity; ++a)
      if (op.in[a] < nvars)
        op.in[a] = static_cast<uint8_t>(to[op.in[a]]);
    if (g.arity == 2 && op_info(g.kind).traits.commutative &&
        op.in[0] > op.in[1])
      std::swap(op.in[0], op.in[1]);
  }
  return out;
}

} // namespace

RenamingSearch::RenamingSearch(const GenConfig &cfg, uint64_t seed, int max_ops)
    : cfg_(cfg), max_ops_(max_ops), seed1_(first_evaluation_seed(seed)),
      seed2_(second_evaluation_seed(seed)),
      inputs1_(variable_bindings(cfg, seed1_)),
      inputs2_(variable_bindings(cfg, seed2_)) {}

bool RenamingSearch::pruned(const CandidatePair &p) const {
  return has_common_subgraph(cfg_, p.source.record, p.target.record) ||
         has_common_supergraph(cfg_, p.source.record, p.target.record);
}

bool RenamingSearch::any_renaming(
    const GraphRecord &r,
    const std::function<bool(const GraphRecord &)> &f) const {
  const int nvars = static_cast<int>(cfg_.variables.size());
  // The variables r uses, by group, in index order; a renaming permutes
  // each group's. Renaming into a variable r does not use would change
  // what it computes.
  std::vector<bool> used(nvars, false);
  for (int i = 0; i < r.num_ops; ++i)
    for (int a = 0; a < cfg_.ops[r.ops[i].choice].arity; ++a)
      if (r.ops[i].in[a] < nvars)
        used[r.ops[i].in[a]] = true;
  std::vector<std::vector<int>> members;
  std::vector<int> group_at(cfg_.groups.size(), -1);
  for (int v = 0; v < nvars; ++v) {
    if (!used[v])
      continue;
    int &k = group_at[cfg_.variables[v].group];
    if (k < 0) {
      k = static_cast<int>(members.size());
      members.emplace_back();
    }
    members[k].push_back(v);
  }
  std::vector<std::vector<int>> perm = members;
  std::vector<int> to(nvars);
  std::iota(to.begin(), to.end(), 0);
  // An odometer over the groups' permutations in lexicographic order,
  // starting after the identity.
  for (int tried = 0; tried < kMaxRenamings; ++tried) {
    size_t g = 0;
    while (g < perm.size() &&
           !std::next_permutation(perm[g].begin(), perm[g].end()))
      ++g; // wrapped around to the identity: carry into the next group
    if (g == perm.size())
      return false; // every renaming tried
    for (size_t k = 0; k < perm.size(); ++k)
      for (size_t m = 0; m < members[k].size(); ++m)
        to[members[k][m]] = perm[k][m];
    if (f(renamed(cfg_, r, to)))
      return true;
  }
  return false;
}

bool RenamingSearch::same_values(const GraphRecord &a,
                                 const GraphRecord &b) const {
  return exact_outputs(cfg_, a, seed1_, inputs1_) ==
             exact_outputs(cfg_, b, seed1_, inputs1_) &&
         exact_outputs(cfg_, a, seed2_, inputs2_) ==
             exact_outputs(cfg_, b, seed2_, inputs2_);
}

std::vector<CandidatePair> RenamingSearch::symmetric_pairs(const GraphRecord &g,
                                                           uint64_t fp2) const {
  std::vector<CandidatePair> out;
  if (g.num_ops > max_ops_)
    return out;
  const std::string form = structural_form(cfg_, g);
  any_renaming(g, [&](const GraphRecord &r) {
    CandidatePair p{{g, fp2}, {r, fp2}};
    if (structural_form(cfg_, r) != form && !pruned(p) && same_values(g, r))
      out.push_back(p);
    return false;
  });
  return out;
}

std::optional<CandidatePair>
RenamingSearch::renamed_apart(const CandidatePair &p) const {
  std::optional<CandidatePair> found;
  any_renaming(p.target.record, [&](const GraphRecord &r) {
    CandidatePair q{p.source, {r, p.target.fp2}};
    if (pruned(q) || !same_values(p.source.record, r))
      return false;
    found = q;
    return true;
  });
  return found;
}

} // namespace quarry
