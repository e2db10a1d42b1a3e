//===- pruning.cc - Renaming keys and TASO's subgraph checks --------------===//
#include "quarry/dedupe/pruning.h"

#include <algorithm>
#include <map>

namespace quarry {

namespace {

/// Appends `r` with variables renamed in order of first use within their
/// interchangeable class (kind and shape); `names` carries the renaming
/// from one graph of a pair to the other.
void encode_renamed(
    const GenConfig &cfg, const GraphRecord &r, std::map<int, int> &names,
    std::map<std::pair<OpKind, std::vector<int64_t>>, int> &next,
    std::map<std::pair<OpKind, std::vector<int64_t>>, int> &class_ids,
    std::string &out) {
  const int nvars = static_cast<int>(cfg.variables.size());
  out += static_cast<char>(r.num_ops);
  for (int i = 0; i < r.num_ops; ++i) {
    const GenOpRef &op = r.ops[i];
    out += static_cast<char>(op.choice);
    for (int a = 0; a < cfg.ops[op.choice].arity; ++a) {
      const int slot = op.in[a];
      if (slot >= nvars) {
        out += 'o';
        out += static_cast<char>(slot - nvars);
        continue;
      }
      const GenVariable &v = cfg.variables[slot];
      const auto cls = std::make_pair(v.kind, v.shape.dims);
      auto [cit, fresh_class] =
          class_ids.emplace(cls, static_cast<int>(class_ids.size()));
      (void)fresh_class;
      auto it = names.find(slot);
      if (it == names.end())
        it = names.emplace(slot, next[cls]++).first;
      out += 'v';
      out += static_cast<char>(cit->second);
      out += static_cast<char>(it->second);
    }
  }
  out += '|';
  for (int o = 0; o < r.num_outputs; ++o)
    out += static_cast<char>(r.outputs[o] - nvars);
  out += ';';
}

std::string encode_pair(const GenConfig &cfg, const GraphRecord &a,
                        const GraphRecord &b) {
  std::map<int, int> names;
  std::map<std::pair<OpKind, std::vector<int64_t>>, int> next, class_ids;
  std::string out;
  encode_renamed(cfg, a, names, next, class_ids, out);
  encode_renamed(cfg, b, names, next, class_ids, out);
  return out;
}

} // namespace

std::string renaming_key(const GenConfig &cfg, const CandidatePair &p) {
  return std::min(encode_pair(cfg, p.source.record, p.target.record),
                  encode_pair(cfg, p.target.record, p.source.record));
}

bool has_common_subgraph(const GenConfig &cfg, const GraphRecord &a,
                         const GraphRecord &b) {
  const int nvars = static_cast<int>(cfg.variables.size());
  for (int i = 0; i < a.num_ops; ++i) {
    const GenOpRef &x = a.ops[i];
    const int arity = cfg.ops[x.choice].arity;
    bool on_variables = true;
    for (int k = 0; k < arity; ++k)
      on_variables = on_variables && x.in[k] < nvars;
    if (!on_variables)
      continue;
    for (int j = 0; j < b.num_ops; ++j)
      if (b.ops[j] == x)
        return true;
  }
  return false;
}

bool has_common_supergraph(const GenConfig &cfg, const GraphRecord &a,
                           const GraphRecord &b) {
  const int nvars = static_cast<int>(cfg.variables.size());
  const GenOpRef &x = a.ops[a.num_ops - 1];
  const GenOpRef &y = b.ops[b.num_ops - 1];
  if (x.choice != y.choice)
    return false;
  int differing = 0;
  for (int k = 0; k < cfg.ops[x.choice].arity; ++k)
    differing += x.in[k] != y.in[k] || x.in[k] >= nvars;
  return differing <= 1;
}

} // namespace quarry
