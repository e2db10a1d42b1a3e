//===- graph_proto.h - Graphs to and from protobuf messages ---*- C++ -*-===//
//
// The conversion between core's Graph and quarry.pb.Graph used by rule
// packs. Only attributes a node has are stored (absent optional ones are
// left out); reading rebuilds the graph through Graph's own checks, so a
// message that names an unknown operator or attribute, refers to a missing
// value or gives an operator the wrong number of operands is rejected.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/graph.h"
#include "quarry_rules.pb.h"

#include <string>

namespace quarry {

void graph_to_proto(const Graph &g, pb::Graph *out);

/// Rebuilds a graph; errors are quarry::Error prefixed with
/// "<where>node <i>: " or "<where>output <i>: ", e.g. where = "x.pb: rule 3:
/// source ".
Graph graph_from_proto(const pb::Graph &msg, const std::string &where);

} // namespace quarry
