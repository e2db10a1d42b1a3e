//===- renaming.cc - Renamed copies of small graphs -----------------------===//
#include "quarry/dedupe/renaming.h"

#include "quarry/core/error.h"
#include "quarry/core/op_registry.h"
#include "quarry/enumerate/enumerator.h"
#include "quarry/field/tensor_hash.h"

#include <algorithm>
#include <numeric>
#include <set>

namespace quarry {

namespace {

/// Renamed copies' keys: bit 63 set, the renaming's ordinal from this bit.
/// Shards store each graph once by key, so a copy needs a key of its own.
constexpr int kCopyKeyShift = 52;
static_assert(RenamedCopies::kMaxRenamings < (1 << (63 - kCopyKeyShift)));

/// `r` with variable slot v read as slot `to[v]`; a commutative operator's
/// two operands in increasing slot order, as the enumerator writes them.
GraphRecord renamed(const GenConfig &cfg, const GraphRecord &r,
                    const std::vector<int> &to, int ordinal) {
  const int nvars = static_cast<int>(cfg.variables.size());
  GraphRecord out = r;
  if ((r.key >> kCopyKeyShift) != 0)
    throw Error("graph record: key " + std::to_string(r.key) +
                " leaves no room for renamed copies");
  out.key = r.key | (uint64_t{1} << 63) |
            (static_cast<uint64_t>(ordinal) << kCopyKeyShift);
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

RenamedCopies::RenamedCopies(const GenConfig &cfg, uint64_t seed, int max_ops)
    : cfg_(cfg), max_ops_(max_ops), seed1_(first_evaluation_seed(seed)),
      inputs1_(variable_bindings(cfg, seed1_)) {}

void RenamedCopies::fingerprint(GraphRecord &r) const {
  const std::vector<Tensor<Fp>> outs = exact_outputs(cfg_, r, seed1_, inputs1_);
  std::vector<std::pair<uint64_t, uint8_t>> order;
  for (size_t o = 0; o < outs.size(); ++o)
    order.emplace_back(hash_tensor(outs[o]), r.outputs[o]);
  std::sort(order.begin(), order.end());
  std::vector<uint64_t> hashes;
  for (size_t o = 0; o < order.size(); ++o) {
    hashes.push_back(order[o].first);
    r.outputs[o] = order[o].second;
  }
  r.fp = combine_output_hashes(hashes);
}

std::vector<GraphRecord> RenamedCopies::of(const GraphRecord &r) const {
  std::vector<GraphRecord> out;
  if (r.num_ops > max_ops_)
    return out;
  const int nvars = static_cast<int>(cfg_.variables.size());
  // The variables r uses, by group, in index order; a renaming permutes
  // each group's. Renaming into a variable r does not use gives a copy
  // that some other enumerated graph already is, up to names.
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
  std::set<std::string> forms{structural_form(cfg_, r)};
  std::vector<std::vector<int>> perm = members;
  std::vector<int> to(nvars);
  std::iota(to.begin(), to.end(), 0);
  // An odometer over the groups' permutations in lexicographic order,
  // starting after the identity.
  for (int ordinal = 1; ordinal <= kMaxRenamings; ++ordinal) {
    size_t g = 0;
    while (g < perm.size() &&
           !std::next_permutation(perm[g].begin(), perm[g].end()))
      ++g; // wrapped around to the identity: carry into the next group
    if (g == perm.size())
      break; // every renaming tried
    for (size_t k = 0; k < perm.size(); ++k)
      for (size_t m = 0; m < members[k].size(); ++m)
        to[members[k][m]] = perm[k][m];
    GraphRecord c = renamed(cfg_, r, to, ordinal);
    if (!forms.insert(structural_form(cfg_, c)).second)
      continue; // a renaming the graph is symmetric under
    fingerprint(c);
    out.push_back(c);
  }
  return out;
}

} // namespace quarry
