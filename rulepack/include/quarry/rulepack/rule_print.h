//===- rule_print.h - A readable listing of a rule pack -------*- C++ -*-===//
//
// What `quarry rules show` prints: the header, then for every rule a line
// "rule <name>  [<status>, <origin>]", its source and target patterns in the
// text form of graphs (core/text.h), indented, and which source output each
// target output replaces.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/rulepack/rule_pack.h"

#include <string>
#include <string_view>
#include <vector>

namespace quarry {

std::string print_rule(const Rule &rule);
std::string print_rule_pack(const RulePack &pack);

/// The rule on one line, source => target, each side its statements in the
/// text form with variables' declarations left out and single-use values
/// nested: "matmul[act=none](w1, w1) => transpose[perm=1,0 shuffle=0](...)".
std::string rule_text(const Rule &rule);

/// How a derivation reads: "by a, b reversed (at x1:[2,2])", or "by
/// commutativity (at ...)" when it has no steps (its sides differ only in
/// the order of a commutative operator's operands).
std::string derivation_text(const std::vector<std::string> &steps,
                            std::string_view shapes);

/// The rule's family: the operators its source and target use, sorted and
/// joined by "+" ("concat+conv2d+split"). Rules of one family do the same
/// kind of thing; reports sum what each family paid.
std::string rule_family(const Rule &rule);

} // namespace quarry
