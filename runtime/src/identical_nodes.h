//===- identical_nodes.h - Nodes that compute the same values -*- C++ -*-===//
//
// Models write the same computation more than once (NASNet-A's normal
// cell pools one input twice and sums the two). Two operator nodes of one kind,
// with equal attributes and the same operands, compute the same values (no
// operator has state or randomness; one kept without semantics, ops/opaque.h,
// is never merged). The cpu and cuda backends run the first and let the others'
// readers read it. Lowering, not rewriting: the optimizer's graph keeps its
// nodes, and its cost model charges each duplicate as it does every node (a
// rewrite priced from its host's costs, rewrite_cost.h, could not tell which
// nodes a rewrite makes or breaks duplicates of).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/graph.h"

#include <vector>

namespace quarry::runtime {

/// Per node of `g`: the first node computing the same values (itself when
/// it is the first, and for every variable).
std::vector<int32_t> first_identical(const Graph &g);

/// `g` with every operand and output read from the first node computing
/// it, so that the duplicates are no longer live. Node ids, names and
/// variables are unchanged.
Graph with_identical_merged(const Graph &g);

} // namespace quarry::runtime
