//===- pattern_match.h - Finding a rule's source in a graph ----*- C++ -*-===//
//
// A match maps every operator of a pattern to a distinct node of the host
// graph and every pattern variable to a host value, such that
//   - operator kinds and parameters agree (a parameter the pattern leaves
//     out, a constant's shape, matches any value);
//   - a split without sizes in the pattern matches a host split into two
//     parts at the concat boundary recorded on its operand's axis;
//   - each operand is the matched operand (commutative operators also with
//     their two operands swapped);
//   - a pattern `weight` variable binds only to a value computed from
//     weights and constants alone.
// Matching never looks at the nodes' other consumers: the rewrite keeps
// them (splice.h).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/graph.h"

#include <bitset>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace quarry::rewrite {

struct Match {
  /// Host node of each pattern node (-1 for variables).
  std::vector<int32_t> nodes;
  /// Host value of each pattern variable, by name.
  std::map<std::string, ValueRef, std::less<>> bindings;
  /// Host values of the pattern's outputs, in order.
  std::vector<ValueRef> outputs;
};

/// The host's static nodes (weights, constants and what is computed from
/// them only) decide which values a `weight` variable may bind to.
struct HostInfo {
  const Graph *graph = nullptr;
  std::vector<bool> is_static;
  /// Operator nodes of each kind, in id order.
  std::vector<std::vector<int32_t>> by_kind;
  /// The kinds of its operators.
  std::bitset<kNumOps> kinds;

  explicit HostInfo(const Graph &g);
};

/// The kinds of `pattern`'s operators: a host lacking one of them holds no
/// match (HostInfo::kinds).
std::bitset<kNumOps> operator_kinds(const Graph &pattern);

/// Every match of `pattern` in the host, at most `limit`, in a fixed order
/// (by the host ids given to the pattern's outputs).
std::vector<Match> find_matches(const HostInfo &host, const Graph &pattern,
                                size_t limit = 10000);

/// A match as the matcher holds it, before a Match is made of it: most
/// matches the search meets are refused for their types alone, which
/// these arrays tell without the names a Match is keyed by.
struct MatchSite {
  const Graph *pattern = nullptr;
  /// Host node of each pattern node (-1 for variables).
  std::span<const int32_t> nodes;
  /// Host value of each pattern variable by pattern node id ({-1, 0} for
  /// operators).
  std::span<const ValueRef> values;
  /// Host values of the pattern's outputs, in order.
  std::span<const ValueRef> outputs;

  Match to_match() const;
};

/// The matches find_matches() gives, in its order, without making them.
void for_each_match(const HostInfo &host, const Graph &pattern, size_t limit,
                    const std::function<void(const MatchSite &)> &f);

} // namespace quarry::rewrite
