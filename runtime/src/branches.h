//===- branches.h - Work only one side of a scalar choice needs -*- C++ -*-===//
//
// An ONNX If on a computed condition is imported as both branches and a
// `where` per output (models/src/onnx_import_branches.cc). When that
// condition is one value, only one branch's result is read: `where` reads
// only the operand it chooses. A node whose every result is read only as
// the `x` operand of wheres on condition c (or by such nodes) need not run
// when c is 0, and one read only as their `y` operand need not run when it
// is not. branch_guards finds those nodes, so that a backend can skip the
// branch not taken once it knows the condition.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/runtime/plan.h"

#include <map>
#include <vector>

namespace quarry::runtime {

/// A node's work is needed only while the scalar value `cond` (non-zero:
/// true) is `when`.
struct BranchGuard {
  ValueRef cond;
  bool when = true;
  bool operator==(const BranchGuard &) const = default;
};

/// For every dynamic node of `p` needed only on one side of wheres with a
/// dynamic one-element condition, the guards under which it is needed (all
/// of them must hold: branches nest). Nodes always needed are absent.
std::map<int32_t, std::vector<BranchGuard>> branch_guards(const Graph &g,
                                                          const Plan &p);

} // namespace quarry::runtime
