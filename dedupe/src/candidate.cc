//===- candidate.cc - Fingerprint classes, exact check, pairs -------------===//
#include "quarry/dedupe/candidate.h"

#include "quarry/core/hash.h"
#include "quarry/enumerate/enumerator.h"
#include "quarry/field/tensor_hash.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace quarry {

uint64_t first_evaluation_seed(uint64_t seed) { return seed; }
uint64_t second_evaluation_seed(uint64_t seed) {
  return mix64(seed ^ 0x5ec0'd0e7'a1ca'7e5dULL);
}

std::vector<Tensor<Fp>> exact_outputs(const GenConfig &cfg,
                                      const GraphRecord &r, uint64_t seed,
                                      const Bindings<Fp> &inputs) {
  return evaluate(PrimeField(seed), decode_graph(cfg, r), inputs);
}

namespace {

struct Member {
  const GraphRecord *record;
  std::vector<Tensor<Fp>> first, second;
  uint64_t fp2 = 0;
  int exact_class = -1;
};

bool record_order(const GraphRecord &a, const GraphRecord &b) {
  if (a.fp != b.fp)
    return a.fp < b.fp;
  if (a.num_ops != b.num_ops)
    return a.num_ops < b.num_ops;
  return a.key < b.key;
}

} // namespace

std::string structural_form(const GenConfig &cfg, const GraphRecord &r) {
  const int nvars = static_cast<int>(cfg.variables.size());
  std::vector<std::string> slot_expr;
  for (int v = 0; v < nvars; ++v)
    slot_expr.push_back("v" + std::to_string(v));
  std::vector<std::string> op_expr;
  for (int i = 0; i < r.num_ops; ++i) {
    const GenOpRef &op = r.ops[i];
    const GenOp &def = cfg.ops.at(op.choice);
    std::string e = std::to_string(op.choice) + "(";
    for (int a = 0; a < def.arity; ++a)
      e += slot_expr.at(op.in[a]) + ",";
    e += ")";
    const int outs = op_num_outputs(def.kind, def.attrs);
    for (int o = 0; o < outs; ++o)
      slot_expr.push_back(outs == 1 ? e : e + "#" + std::to_string(o));
    op_expr.push_back(std::move(e));
  }
  std::sort(op_expr.begin(), op_expr.end());
  std::string out;
  for (const std::string &e : op_expr)
    out += e + ";";
  return out;
}

std::vector<CandidatePair>
form_candidate_pairs(const GenConfig &cfg, uint64_t seed,
                     std::vector<GraphRecord> &records, ClassStats &stats) {
  std::sort(records.begin(), records.end(), record_order);
  stats.graphs += records.size();
  const uint64_t seed1 = first_evaluation_seed(seed);
  const uint64_t seed2 = second_evaluation_seed(seed);
  // The inputs of both evaluations, made once for every class member.
  const Bindings<Fp> inputs1 = variable_bindings(cfg, seed1);
  const Bindings<Fp> inputs2 = variable_bindings(cfg, seed2);
  std::vector<CandidatePair> pairs;
  for (size_t lo = 0; lo < records.size();) {
    size_t hi = lo + 1;
    while (hi < records.size() && records[hi].fp == records[lo].fp)
      ++hi;
    // The same graph enumerated with its independent operators in another
    // order is not a candidate: keep the first of each.
    std::vector<size_t> distinct;
    if (hi - lo >= 2) {
      std::unordered_set<std::string> seen;
      for (size_t i = lo; i < hi; ++i) {
        if (!seen.insert(structural_form(cfg, records[i])).second) {
          ++stats.reorderings;
          continue;
        }
        distinct.push_back(i);
      }
    }
    if (distinct.size() >= 2) {
      std::vector<Member> members(distinct.size());
      for (size_t d = 0; d < distinct.size(); ++d) {
        const size_t i = distinct[d];
        Member &m = members[d];
        m.record = &records[i];
        m.first = exact_outputs(cfg, records[i], seed1, inputs1);
        m.second = exact_outputs(cfg, records[i], seed2, inputs2);
        m.fp2 = hash_tensors(m.second);
      }
      // Exact classes, in record order: a member joins the first earlier
      // member whose outputs equal its own under both evaluations. Heads
      // are looked up by a hash of all their values; the values decide.
      std::vector<size_t> class_heads;
      std::unordered_multimap<uint64_t, size_t> heads_by_hash;
      for (size_t i = 0; i < members.size(); ++i) {
        const uint64_t h =
            hash_combine(hash_tensors(members[i].first), members[i].fp2);
        auto [b, e] = heads_by_hash.equal_range(h);
        for (auto it = b; it != e; ++it) {
          const Member &head = members[class_heads[it->second]];
          if (head.first == members[i].first &&
              head.second == members[i].second) {
            members[i].exact_class = static_cast<int>(it->second);
            break;
          }
        }
        if (members[i].exact_class < 0)
          heads_by_hash.emplace(h, class_heads.size());
        if (members[i].exact_class < 0) {
          members[i].exact_class = static_cast<int>(class_heads.size());
          class_heads.push_back(i);
        }
      }
      stats.collisions += class_heads.size() - 1;
      std::vector<size_t> class_size(class_heads.size(), 0);
      for (const Member &m : members)
        ++class_size[m.exact_class];
      for (size_t c = 0; c < class_heads.size(); ++c)
        stats.classes += class_size[c] >= 2;
      for (size_t i = 0; i < members.size(); ++i) {
        const Member &m = members[i];
        const size_t head = class_heads[m.exact_class];
        if (head == i)
          continue;
        CandidatePair p;
        p.source = {*members[head].record, members[head].fp2};
        p.target = {*m.record, m.fp2};
        pairs.push_back(p);
      }
    }
    lo = hi;
  }
  stats.candidates += pairs.size();
  return pairs;
}

} // namespace quarry
