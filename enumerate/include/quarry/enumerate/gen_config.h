//===- gen_config.h - The search space of the generator --------*- C++ -*-===//
//
// A generator config names the variables graphs may read (with shapes, in
// groups of interchangeable copies) and the operator choices (an operator
// with fixed attributes) the enumeration may apply. The text format is in
// docs/GENERATOR.md; configs/taso.gen reproduces TASO's generator.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/graph.h"

#include <string>
#include <string_view>
#include <vector>

namespace quarry {

/// One variable: `x2` is index 1 of group `x`. Variables of a group are
/// interchangeable, so enumeration only uses them in index order.
struct GenVariable {
  std::string name;
  OpKind kind = OpKind::Input; ///< Input or Weight
  Shape shape;
  int group = 0;
  int index_in_group = 0;
};

/// Which operand tuples an operator choice is applied to.
enum class OperandOrder {
  Any,        ///< every tuple, repeats allowed (matmul(a, a))
  Distinct,   ///< no operand repeated
  Increasing, ///< strictly increasing slots: one order per operand set
};

/// One operator with all attributes fixed.
struct GenOp {
  OpKind kind = OpKind::Relu;
  Attrs attrs;
  int arity = 0;
  OperandOrder order = OperandOrder::Any;
  bool first_not_weight = false; ///< operand 0 may not be a weight variable
  bool variables_only = false;   ///< every operand must be a variable
  /// When not empty, operand 1 (a kernel) must be [., ., kh, kw] with
  /// (kh, kw) in this list, as TASO's per-kernel-size convolutions.
  std::vector<std::pair<int64_t, int64_t>> kernels;
  std::string label; ///< "conv2d[s=1,1 pad=same act=relu]"
};

struct GenConfig {
  std::string file; ///< where it was read from (for messages)
  std::string text; ///< the config text itself, kept for provenance
  std::vector<GenVariable> variables;
  std::vector<std::string> groups; ///< group names, by group id
  std::vector<GenOp> ops;
};

/// Parses a config; errors are quarry::Error "file:line:col: ...".
GenConfig parse_gen_config(std::string_view text, std::string_view file);
GenConfig read_gen_config(const std::string &path);

/// A node with the op's kind and attributes (for evaluation and decoding).
Node make_node(const GenOp &op);

} // namespace quarry
