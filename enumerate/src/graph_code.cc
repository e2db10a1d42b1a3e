//===- graph_code.cc - Decoding records into graphs -----------------------===//
#include "quarry/enumerate/graph_code.h"

#include "quarry/core/error.h"

namespace quarry {

int slots_after(const GenConfig &cfg, const GraphRecord &r, int n) {
  int slots = static_cast<int>(cfg.variables.size());
  for (int i = 0; i < n; ++i) {
    const GenOp &op = cfg.ops.at(r.ops[i].choice);
    slots += op_num_outputs(op.kind, op.attrs);
  }
  return slots;
}

Graph decode_graph(const GenConfig &cfg, const GraphRecord &r,
                   bool as_pattern) {
  const int nvars = static_cast<int>(cfg.variables.size());
  if (r.num_ops < 1 || r.num_ops > kMaxGenOps || r.num_outputs < 1 ||
      r.num_outputs > kMaxGenOutputs)
    throw Error("graph record: bad operator or output count");
  // Slot -> value in the graph being built; variables are added on first use
  // so the graph holds only the ones it reads.
  std::vector<ValueRef> slot_value(nvars, ValueRef{-1, 0});
  Graph g;
  auto value_of = [&](uint8_t slot) -> ValueRef {
    if (slot >= slot_value.size())
      throw Error("graph record: operand slot " + std::to_string(slot) +
                  " not defined yet");
    if (slot < nvars && slot_value[slot].node < 0) {
      const GenVariable &v = cfg.variables[slot];
      std::optional<Shape> shape;
      if (!as_pattern)
        shape = v.shape;
      slot_value[slot] = v.kind == OpKind::Weight ? g.weight(v.name, shape)
                                                  : g.input(v.name, shape);
    }
    return slot_value[slot];
  };
  for (int i = 0; i < r.num_ops; ++i) {
    const GenOpRef &ref = r.ops[i];
    if (ref.choice >= cfg.ops.size())
      throw Error("graph record: operator choice " +
                  std::to_string(ref.choice) + " not in the config");
    const GenOp &op = cfg.ops[ref.choice];
    std::vector<ValueRef> ins;
    for (int a = 0; a < op.arity; ++a)
      ins.push_back(value_of(ref.in[a]));
    for (ValueRef v : g.add(op.kind, op.attrs, std::move(ins)))
      slot_value.push_back(v);
  }
  for (int o = 0; o < r.num_outputs; ++o) {
    const uint8_t s = r.outputs[o];
    if (s < nvars || s >= slot_value.size())
      throw Error("graph record: output slot " + std::to_string(s) +
                  " is not an operator output");
    g.mark_output(slot_value[s]);
  }
  return g;
}

} // namespace quarry
