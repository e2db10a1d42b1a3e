//===- packs.h - The rule packs the tests use, when present ----*- C++ -*-===//
#pragma once

#include "quarry/rules/rule_pack_io.h"

#include <filesystem>
#include <optional>
#include <string>

namespace quarry::opt::test {

/// TASO's collection (imported, status unknown) and quarry's own verified
/// pack; nullopt when the file is absent on this machine.
inline std::optional<RulePack> taso_pack() {
  if (!std::filesystem::exists(QUARRY_TASO_RULES_FILE))
    return std::nullopt;
  return read_rule_pack(QUARRY_TASO_RULES_FILE);
}

inline std::optional<RulePack> quarry_pack() {
  if (!std::filesystem::exists(QUARRY_VERIFIED_RULES_FILE))
    return std::nullopt;
  return read_rule_pack(QUARRY_VERIFIED_RULES_FILE);
}

} // namespace quarry::opt::test
