//===- rule_pack_io.h - Reading and writing rule files --------*- C++ -*-===//
//
// Rule files are protobuf: quarry's own packs (rulepack/quarry_rules.proto) or
// TASO rule collections (rulepack/taso_rules.proto), told apart by the pack's
// leading `format` field. Reading validates everything a file could get
// wrong (operator and attribute names, value references, arities) and
// reports it as one line naming the file, the rule and the node:
//   "x.pb: rule 3: source node 2: unknown operator 'conv3d'"
// Writing is deterministic, so equal packs give equal bytes, and atomic: a
// temporary file beside the target is renamed over it, so a failed write
// never leaves a partial file.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/rulepack/rule_pack.h"

#include <string>
#include <string_view>

namespace quarry {

enum class RuleFileFormat { QuarryPack, TasoCollection };

/// Reads a quarry rule pack or imports a TASO rule collection.
RulePack read_rule_pack(const std::string &path);

/// The same from bytes in memory; `file` names them in errors.
RulePack parse_rule_pack(std::string_view bytes, const std::string &file);

/// Which format the bytes are in; throws quarry::Error naming `file` when
/// they are neither (empty, truncated, or not a rule file).
RuleFileFormat detect_rule_file_format(std::string_view bytes,
                                       const std::string &file);

/// Writes `pack` as a quarry rule pack; throws quarry::Error naming `path`.
void write_rule_pack(const RulePack &pack, const std::string &path);

/// The bytes write_rule_pack() writes.
std::string serialize_rule_pack(const RulePack &pack);

} // namespace quarry
