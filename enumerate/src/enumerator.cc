//===- enumerator.cc - The depth-first search -----------------------------===//
#include "quarry/enumerate/enumerator.h"

#include "quarry/core/error.h"
#include "quarry/core/evaluate.h"
#include "quarry/core/hash.h"
#include "quarry/field/random_field.h"
#include "quarry/field/tensor_hash.h"

#include <algorithm>
#include <unordered_map>

namespace quarry {

Bindings<Fp> variable_bindings(const GenConfig &cfg, uint64_t seed) {
  Graph all;
  for (const GenVariable &v : cfg.variables)
    v.kind == OpKind::Weight ? all.weight(v.name, v.shape)
                             : all.input(v.name, v.shape);
  return random_field_bindings(all, seed);
}

uint64_t combine_output_hashes(std::span<const uint64_t> sorted_hashes) {
  uint64_t h = mix64(0x0f0f + sorted_hashes.size());
  for (uint64_t x : sorted_hashes)
    h = hash_combine(h, x);
  return h;
}

namespace {

void append_tree(std::string &out, const SplitRef &t) {
  if (!t) {
    out += '.';
    return;
  }
  out += '(' + std::to_string(t->left);
  append_tree(out, t->lhs);
  append_tree(out, t->rhs);
  out += ')';
}

/// A string equal for two types exactly when shapes and boundaries match.
std::string type_key(const TensorType &t) {
  std::string k;
  for (int64_t d : t.shape.dims)
    k += std::to_string(d) + 'x';
  k += '|';
  for (int a = 0; a < t.rank(); ++a)
    append_tree(k, t.split(a));
  return k;
}

/// A tensor of the graph being built.
struct Slot {
  int type_id = 0;
  Tensor<Fp> value;
  uint64_t value_hash = 0; ///< shape and values: what outputs are keyed by
  int var = -1;            ///< config variable index, or -1
};

/// A cached leaf evaluation: the operands' hashes and the outputs' hashes.
struct LeafEntry {
  std::array<uint64_t, kMaxGenOperands> in_hash{};
  std::array<uint16_t, kMaxGenOperands> in_type{};
  uint16_t choice = 0;
  bool valid = false;
  uint64_t out_hash[2] = {0, 0};
};

/// Outputs of one operator choice on operands of given types; -1 if invalid.
struct TypeResult {
  std::vector<TensorType> types;
  std::vector<int> ids;
};

} // namespace

struct Enumerator::Impl {
  const GenConfig &cfg;
  int max_ops;
  int unit_depth;
  PrimeField field;
  std::vector<Node> nodes; ///< one per operator choice

  std::vector<TensorType> types;
  std::unordered_map<std::string, int> type_ids;
  std::unordered_map<uint64_t, int> type_memo; ///< -> index in results, -1
  std::vector<TypeResult> results;

  std::vector<Slot> slots;
  std::vector<int> uses;
  std::vector<LeafEntry> leaf_cache = std::vector<LeafEntry>(1 << 20);
  std::vector<GenOpRef> ops;
  std::vector<int> group_used;

  const std::function<bool(uint64_t)> *mine = nullptr;
  const std::function<void(const GraphRecord &)> *emit = nullptr;
  uint64_t cur_unit = 0, cur_index = 0;
  EnumStats stats;

  Impl(const GenConfig &c, int m, uint64_t seed)
      : cfg(c), max_ops(m), unit_depth(std::min(2, m)), field(seed) {
    if (max_ops < 1 || max_ops > kMaxGenOps)
      throw Error("max-ops must be from 1 to " + std::to_string(kMaxGenOps));
    for (const GenOp &op : cfg.ops)
      nodes.push_back(make_node(op));
    group_used.assign(cfg.groups.size(), 0);
    Bindings<Fp> values = variable_bindings(cfg, seed);
    for (size_t v = 0; v < cfg.variables.size(); ++v) {
      const GenVariable &var = cfg.variables[v];
      Slot s;
      s.type_id = intern(TensorType(var.shape));
      s.value = std::move(values.at(var.name));
      s.value_hash = hash_tensor(s.value);
      s.var = static_cast<int>(v);
      slots.push_back(std::move(s));
      uses.push_back(0);
    }
  }

  int intern(const TensorType &t) {
    auto [it, fresh] =
        type_ids.emplace(type_key(t), static_cast<int>(types.size()));
    if (fresh) {
      if (types.size() >= 0xffff)
        throw Error("enumerate: more than 65535 distinct tensor types");
      types.push_back(t);
    }
    return it->second;
  }

  /// Output types of `choice` on the operand slots, or nullptr.
  const TypeResult *infer(int choice, const uint8_t *in, int arity) {
    uint64_t key = static_cast<uint64_t>(choice);
    for (int a = 0; a < arity; ++a)
      key |= static_cast<uint64_t>(slots[in[a]].type_id) << (8 + 16 * a);
    auto it = type_memo.find(key);
    if (it == type_memo.end()) {
      int result = -1;
      std::vector<TensorType> in_types;
      for (int a = 0; a < arity; ++a)
        in_types.push_back(types[slots[in[a]].type_id]);
      try {
        const GenOp &op = cfg.ops[choice];
        if (auto out = infer_types(op.kind, op.attrs, in_types)) {
          TypeResult r;
          r.types = std::move(*out);
          for (const TensorType &t : r.types)
            r.ids.push_back(intern(t));
          result = static_cast<int>(results.size());
          results.push_back(std::move(r));
        }
      } catch (const Error &) {
        // Not applicable to these operand types.
      }
      it = type_memo.emplace(key, result).first;
    }
    return it->second < 0 ? nullptr : &results[it->second];
  }

  bool operands_allowed(const GenOp &op, const uint8_t *in) const {
    if (!op.kernels.empty()) {
      const Shape &k = types[slots[in[1]].type_id].shape;
      if (k.rank() != 4 ||
          std::find(op.kernels.begin(), op.kernels.end(),
                    std::make_pair(k[2], k[3])) == op.kernels.end())
        return false;
    }
    for (int a = 0; a < op.arity; ++a) {
      const Slot &s = slots[in[a]];
      if (op.variables_only && s.var < 0)
        return false;
      if (a == 0 && op.first_not_weight && s.var >= 0 &&
          cfg.variables[s.var].kind == OpKind::Weight)
        return false;
    }
    return true;
  }

  /// Variables of a group are first used in index order.
  bool canonical_use(const GenOp &op, const uint8_t *in,
                     std::vector<int> &newly_used) {
    for (int a = 0; a < op.arity; ++a) {
      const int v = slots[in[a]].var;
      if (v < 0)
        continue;
      const GenVariable &var = cfg.variables[v];
      int &used = group_used[var.group];
      if (var.index_in_group > used) {
        for (int g : newly_used)
          --group_used[g];
        newly_used.clear();
        return false;
      }
      if (var.index_in_group == used) {
        ++used;
        newly_used.push_back(var.group);
      }
    }
    return true;
  }

  bool duplicate_op(int choice, const uint8_t *in, int arity) const {
    for (const GenOpRef &r : ops) {
      if (r.choice != choice)
        continue;
      bool same = true;
      for (int a = 0; a < arity && same; ++a)
        same = r.in[a] == in[a];
      if (same)
        return true;
    }
    return false;
  }

  std::vector<Tensor<Fp>> evaluate(int choice, const uint8_t *in,
                                   const TypeResult &tr) {
    const int arity = cfg.ops[choice].arity;
    std::array<const Tensor<Fp> *, kMaxGenOperands> args{};
    for (int a = 0; a < arity; ++a)
      args[a] = &slots[in[a]].value;
    return detail::run_node<PrimeField>(
        field, nodes[choice], std::span(args.data(), arity), tr.types);
  }

  LeafEntry *leaf_entry(int choice, const uint8_t *in, int arity) {
    LeafEntry probe;
    probe.choice = static_cast<uint16_t>(choice);
    uint64_t key = mix64(static_cast<uint64_t>(choice) + 1);
    for (int a = 0; a < arity; ++a) {
      const Slot &s = slots[in[a]];
      probe.in_hash[a] = s.value_hash;
      probe.in_type[a] = static_cast<uint16_t>(s.type_id);
      key = hash_combine(key, s.value_hash ^ static_cast<uint64_t>(s.type_id));
    }
    LeafEntry &e = leaf_cache[key & (leaf_cache.size() - 1)];
    if (!e.valid || e.choice != probe.choice || e.in_hash != probe.in_hash ||
        e.in_type != probe.in_type) {
      e = probe;
      e.valid = false;
    }
    return &e;
  }

  bool might_equal_existing(const Slot &s) const {
    for (const Slot &o : slots)
      if (o.value_hash == s.value_hash && o.type_id == s.type_id)
        return true;
    return false;
  }

  bool equals_existing(const Slot &s) const {
    for (const Slot &o : slots)
      if (o.value_hash == s.value_hash && o.type_id == s.type_id &&
          o.value.data == s.value.data)
        return true;
    return false;
  }

  void emit_current() {
    std::array<std::pair<uint64_t, uint8_t>, 16> outs;
    int n = 0;
    for (size_t i = cfg.variables.size(); i < slots.size(); ++i) {
      if (uses[i] != 0)
        continue;
      if (n == kMaxGenOutputs) {
        ++stats.too_many_outputs;
        return;
      }
      outs[n++] = {slots[i].value_hash, static_cast<uint8_t>(i)};
    }
    std::sort(outs.begin(), outs.begin() + n);
    GraphRecord r;
    std::array<uint64_t, kMaxGenOutputs> hashes{};
    for (int i = 0; i < n; ++i) {
      hashes[i] = outs[i].first;
      r.outputs[i] = outs[i].second;
    }
    r.num_outputs = static_cast<uint8_t>(n);
    r.fp = combine_output_hashes(std::span(hashes.data(), n));
    r.key = (cur_unit << 32) | cur_index++;
    r.num_ops = static_cast<uint8_t>(ops.size());
    std::copy(ops.begin(), ops.end(), r.ops.begin());
    ++stats.graphs;
    (*emit)(r);
  }

  /// Tries operator `choice` on operands `in`; recurses when it is kept.
  void apply(int choice, const uint8_t *in, int depth) {
    const GenOp &op = cfg.ops[choice];
    if (!operands_allowed(op, in))
      return;
    const TypeResult *tr = infer(choice, in, op.arity);
    if (!tr || duplicate_op(choice, in, op.arity))
      return;
    std::vector<int> newly_used;
    if (!canonical_use(op, in, newly_used))
      return;
    struct Restore {
      Impl &self;
      std::vector<int> &groups;
      ~Restore() {
        for (int g : groups)
          --self.group_used[g];
      }
    } restore{*this, newly_used};

    const int count = depth + 1; // operators in the new graph
    bool owned = true;
    if (count <= unit_depth) {
      const uint64_t unit = stats.units++;
      owned = (*mine)(unit);
      if (count == unit_depth && !owned)
        return; // another caller enumerates this subtree
      cur_unit = unit;
      cur_index = 0;
    }

    // Leaves (graphs at max_ops) are never operands, so only their hashes
    // are needed, and a cache keyed by the operands' hashes skips most of
    // their evaluations: the same leaf operator recurs under many parents.
    const bool leaf = count == max_ops;
    std::vector<Tensor<Fp>> outs;
    uint64_t out_hash[2] = {0, 0};
    const size_t nout = tr->ids.size();
    LeafEntry *entry =
        leaf && nout <= 2 ? leaf_entry(choice, in, op.arity) : nullptr;
    if (entry && entry->valid) {
      out_hash[0] = entry->out_hash[0];
      out_hash[1] = entry->out_hash[1];
    } else {
      outs = evaluate(choice, in, *tr);
      for (size_t o = 0; o < nout && o < 2; ++o)
        out_hash[o] = hash_tensor(outs[o]);
      if (entry) {
        entry->out_hash[0] = out_hash[0];
        entry->out_hash[1] = out_hash[1];
        entry->valid = true;
      }
    }
    const size_t base = slots.size();
    for (size_t o = 0; o < nout; ++o) {
      Slot s;
      s.type_id = tr->ids[o];
      s.value_hash = o < 2 ? out_hash[o] : hash_tensor(outs[o]);
      if (might_equal_existing(s)) {
        // Hashes suggest a repeat: decide on the values themselves.
        if (outs.empty())
          outs = evaluate(choice, in, *tr);
        // Earlier outputs of this leaf may have been pushed without values.
        for (size_t k = base; k < slots.size(); ++k)
          if (slots[k].value.data.empty())
            slots[k].value = outs[k - base];
        s.value = outs[o];
        if (equals_existing(s)) {
          ++stats.pruned_equal;
          slots.resize(base);
          uses.resize(base);
          return;
        }
      }
      if (!leaf)
        s.value = std::move(outs[o]);
      slots.push_back(std::move(s));
      uses.push_back(0);
    }
    GenOpRef ref;
    ref.choice = static_cast<uint8_t>(choice);
    for (int a = 0; a < op.arity; ++a) {
      ref.in[a] = in[a];
      ++uses[in[a]];
    }
    ops.push_back(ref);
    if (owned)
      emit_current();
    if (count < max_ops)
      expand(count);
    ops.pop_back();
    for (int a = 0; a < op.arity; ++a)
      --uses[in[a]];
    slots.resize(base);
    uses.resize(base);
  }

  /// Every child of the current graph, which has `depth` operators.
  void expand(int depth) {
    const int n = static_cast<int>(slots.size());
    if (n > kNoSlot)
      throw Error("enumerate: too many tensors in one graph");
    for (int c = 0; c < static_cast<int>(cfg.ops.size()); ++c) {
      const GenOp &op = cfg.ops[c];
      uint8_t in[kMaxGenOperands] = {kNoSlot, kNoSlot, kNoSlot};
      const bool distinct = op.order != OperandOrder::Any;
      const bool increasing = op.order == OperandOrder::Increasing;
      switch (op.arity) {
      case 0:
        apply(c, in, depth);
        break;
      case 1:
        for (int j = 0; j < n; ++j) {
          in[0] = static_cast<uint8_t>(j);
          apply(c, in, depth);
        }
        break;
      case 2:
        for (int j = 0; j < n; ++j)
          for (int k = increasing ? j + 1 : 0; k < n; ++k) {
            if (distinct && j == k)
              continue;
            in[0] = static_cast<uint8_t>(j);
            in[1] = static_cast<uint8_t>(k);
            apply(c, in, depth);
          }
        break;
      case 3:
        for (int j = 0; j < n; ++j)
          for (int k = increasing ? j + 1 : 0; k < n; ++k)
            for (int l = increasing ? k + 1 : 0; l < n; ++l) {
              if (distinct && (j == k || k == l || j == l))
                continue;
              in[0] = static_cast<uint8_t>(j);
              in[1] = static_cast<uint8_t>(k);
              in[2] = static_cast<uint8_t>(l);
              apply(c, in, depth);
            }
        break;
      default:
        throw Error("enumerate: unsupported operand count");
      }
    }
  }
};

Enumerator::Enumerator(const GenConfig &cfg, int max_ops, uint64_t seed)
    : impl_(std::make_unique<Impl>(cfg, max_ops, seed)) {}
Enumerator::~Enumerator() = default;

void Enumerator::run(const std::function<bool(uint64_t)> &mine,
                     const std::function<void(const GraphRecord &)> &emit) {
  impl_->mine = &mine;
  impl_->emit = &emit;
  impl_->stats = {};
  impl_->expand(0);
}

const EnumStats &Enumerator::stats() const { return impl_->stats; }
int Enumerator::unit_depth() const { return impl_->unit_depth; }

} // namespace quarry
