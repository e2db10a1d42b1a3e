//===- text.h - The readable text form of graphs --------------*- C++ -*-===//
//
// Used in tests, logs, reports and rule listings:
//
//   input x: [2,4,5,5]
//   weight w1: [4,4,3,3]
//   weight w2: [4,4,3,3]
//   y = conv2d[s=1,1 pad=same act=none](x, concat[axis=0](w1, w2))
//   a, b = split[axis=1](y)
//   output a, b
//
// Statements end at a newline; '#' starts a comment. A value used once may
// be written inline as a nested call; multi-output operators are bound with
// "a, b = ...". Attributes left out take their defaults. The grammar is in
// docs/TEXT_FORMAT.md.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/graph.h"

#include <string>
#include <string_view>

namespace quarry {

struct PrintOptions {
  /// Write each node's inferred type as a trailing comment.
  bool types = false;
  /// Nest values used exactly once into their user.
  bool inline_single_use = true;
};

/// The text form; parse_graph(print_graph(g)) is structurally equal to g.
std::string print_graph(const Graph &g, const PrintOptions &opts = {});

/// Parses the text form. Errors throw quarry::Error with "file:line:col:".
Graph parse_graph(std::string_view text, std::string_view file = "<string>");

/// Reads and parses a file.
Graph read_graph_file(const std::string &path);

} // namespace quarry
