//===- packs.h - The rule packs the tests use, when present ----*- C++ -*-===//
#pragma once

#include "quarry/rulepack/rule_pack_io.h"
#include "quarry/verify/verifier.h"

#include <filesystem>
#include <optional>
#include <string>

namespace quarry::opt::test {

/// TASO's collection as quarry proves it from axioms/taso.axioms (a second
/// or two, once per process): its merges of ungrouped convolutions carry
/// that precondition, which TASO's file does not state. Then quarry's own
/// verified pack. nullopt when the file is absent on this machine.
inline std::optional<RulePack> taso_pack() {
  static const std::optional<RulePack> pack = []() -> std::optional<RulePack> {
    if (!std::filesystem::exists(QUARRY_TASO_RULES_FILE))
      return std::nullopt;
    const RulePack raw = read_rule_pack(QUARRY_TASO_RULES_FILE);
    verify::VerifyOptions o;
    o.threads = 2;
    const std::string axioms = QUARRY_AXIOMS_FILE;
    return verify::proved_pack(
        raw,
        verify::verify_rules(verify::read_axiom_file(axioms), raw.rules, o),
        axioms);
  }();
  return pack;
}

inline std::optional<RulePack> quarry_pack() {
  if (!std::filesystem::exists(QUARRY_VERIFIED_RULES_FILE))
    return std::nullopt;
  return read_rule_pack(QUARRY_VERIFIED_RULES_FILE);
}

} // namespace quarry::opt::test
