//===- search_key.h - The key the search tells graphs apart by -*- C++ -*-===//
#pragma once

#include "quarry/core/graph.h"

#include <cstdint>

namespace quarry::rewrite {

/// A hash of a graph for the search to tell graphs apart by. Like
/// Graph::hash() it depends only on the computation (operators, their
/// attributes and operands, outputs in order, variables), not on node
/// order or names of values; unlike it, a node's key is linear in its
/// operands' keys (modulo the prime 2^61 - 1, each operand slot with its
/// own coefficient), so that a RewriteView (rewrite_view.h) can tell the
/// key of a rewritten graph from the values the rewrite replaces and their
/// readers, without making the graph.
uint64_t search_key(const Graph &g);

} // namespace quarry::rewrite
