//===- rule_print.h - A readable listing of a rule pack -------*- C++ -*-===//
//
// What `quarry rules show` prints: the header, then for every rule a line
// "rule <name>  [<status>, <origin>]", its source and target patterns in the
// text form of graphs (core/text.h), indented, and which source output each
// target output replaces.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/rules/rule_pack.h"

#include <string>

namespace quarry {

std::string print_rule(const Rule &rule);
std::string print_rule_pack(const RulePack &pack);

} // namespace quarry
