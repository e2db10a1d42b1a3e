//===- enumerator.h - Depth-first enumeration of the search space -*- C++
//-*-===//
//
// Enumerates every graph of up to max_ops operator choices over the config's
// variables, evaluating each new operator exactly in GF(2^61-1) as it is
// added (the shared operator semantics through detail::run_node), so a graph
// costs one operator evaluation. TASO's pruning applies while enumerating:
//   - no two tensors of a graph are equal (values, shape and concat
//     boundaries), so no operator recomputes something the graph has;
//   - no operator choice is applied twice to the same operands;
//   - variables of a group are first used in index order (x1 before x2).
//
// Work units partition the tree for MPI ranks. Every type-correct operator
// application at depth <= unit_depth is a unit, numbered in depth-first
// order (the same numbering for every rank count); a unit at unit_depth
// owns its subtree. `mine(unit)` says which units this caller enumerates;
// the few nodes above unit_depth are walked by every caller.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/evaluate.h"
#include "quarry/enumerate/graph_code.h"
#include "quarry/field/prime_field.h"

#include <functional>
#include <memory>

namespace quarry {

struct EnumStats {
  uint64_t graphs = 0;           ///< records emitted
  uint64_t pruned_equal = 0;     ///< an operator output equal to a tensor
  uint64_t too_many_outputs = 0; ///< graphs with > kMaxGenOutputs outputs
  uint64_t units = 0;            ///< units numbered (owned or not)
};

class Enumerator {
public:
  /// `seed` fixes the random field inputs of the first evaluation.
  Enumerator(const GenConfig &cfg, int max_ops, uint64_t seed);
  ~Enumerator();

  /// Walks the whole tree once. `mine(unit)` is called once per unit, in
  /// increasing order; `emit` gets every graph of the units it accepts.
  void run(const std::function<bool(uint64_t unit)> &mine,
           const std::function<void(const GraphRecord &)> &emit);

  const EnumStats &stats() const;
  int unit_depth() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The random exact inputs of every config variable under `seed`: the
/// values the enumerator evaluates with, and what any exact re-evaluation of
/// a record must bind (random_field_bindings of all the variables).
Bindings<Fp> variable_bindings(const GenConfig &cfg, uint64_t seed);

/// The hash of a graph's outputs as the enumerator computes it: the output
/// tensors' hashes (shape and values), sorted, combined. `sorted_hashes`
/// must be in increasing order.
uint64_t combine_output_hashes(std::span<const uint64_t> sorted_hashes);

} // namespace quarry
