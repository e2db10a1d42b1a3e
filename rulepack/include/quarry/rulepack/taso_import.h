//===- taso_import.h - Rules from TASO's graph_subst.pb -------*- C++ -*-===//
//
// TASO stores rules as lists of operators (rulepack/taso_rules.proto) that
// refer to earlier operators by index and to the rule's input variables by
// negative index: opId -k is variable k, imported as the pattern input
// "x<k>". Each side (source, target) declares exactly the variables it
// uses, in increasing k; the target may use only variables the source uses.
// Mapped output i, (srcOpId, srcTsId) -> (dstOpId, dstTsId), becomes
// source.outputs()[i] and target.outputs()[i].
//
// Operators and parameters map onto quarry's as follows (TASO key numbers
// in brackets):
//   conv2d      stride_h/w [6,7] -> s, pad [8] -> pad, acti [9] -> act;
//               kernel_h/w [4,5] and group [3] are dropped: in quarry they
//               follow from the weight's shape.
//   pool2d_*    kernel_h/w -> k, stride_h/w -> s, pad -> pad; acti must be
//               none (quarry's pooling has no fused activation).
//   matmul      acti -> act.
//   concat      axis [11] -> axis; num_inputs [1] must equal the operand
//               count and numdim [10] is dropped (both follow from shapes).
//   split       axis -> axis; always two outputs (num_outputs [2] must be
//               2), cut at the concat boundary, as quarry's split without
//               `sizes` does.
//   transpose   perm [12] is TASO's integer code (digits of the permutation
//               in base numdim [10], default 2, most significant first) and
//               becomes the list `perm`; outshuffle [13] -> shuffle.
//   enlarge, const_pool, const_iconv
//               kernel_h/w -> k; constants get no shape (patterns).
//   relu, sigmoid, tanh, ewadd, ewmul, scalar_mul, const_imm, const_one
//               no parameters.
// TASO's activation codes (none 0, sigmoid 1, relu 2, tanh 3) are renumbered
// to quarry's Activation; padding codes (same 0, valid 1) are the same.
//
// Anything else (an unknown operator type or parameter key, a parameter the
// operator does not take, a reference to a later operator or a missing
// output) is a one-line quarry::Error naming the file, the rule index, the
// side and the operator index.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/rulepack/rule_pack.h"

#include <string>
#include <string_view>

namespace quarry {

/// Imports a TASO rule collection file. Rule i is named "taso_<i>", with
/// provenance origin "taso-import", the file's base name and index i, and
/// proof status Unknown.
RulePack import_taso_rules(const std::string &path);

/// The same from bytes in memory; `file` names them in errors and provenance.
RulePack import_taso_rules_from_bytes(std::string_view bytes,
                                      const std::string &file);

} // namespace quarry
