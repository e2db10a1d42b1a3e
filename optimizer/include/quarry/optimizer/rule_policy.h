//===- rule_policy.h - Which rule packs the optimizer accepts --*- C++ -*-===//
//
// The optimizer applies rules only when each one is known to be correct:
// every rule of the pack must have proof status PROVED (quarry verify
// writes such packs). A pack with any other rule (TASO's imported
// collection is UNKNOWN until verified) is refused with one line naming
// the file and the first such rule, unless the caller allows unverified
// rules explicitly.
//
// Proved is not enough for a rule proved before quarry verify r3: earlier
// revisions proved merges of convolutions that hold only for ungrouped
// kernels without saying so, and the optimizer now applies a rule wherever
// its preconditions hold. Such a pack is refused the same way, asking for
// it to be proved again.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/rulepack/rule_pack.h"

#include <string>

namespace quarry::opt {

/// Throws quarry::Error "FILE: rule I 'NAME' is STATUS, not proved; ..."
/// unless every rule is proved or `allow_unverified`.
void require_proved(const RulePack &pack, const std::string &file,
                    bool allow_unverified);

} // namespace quarry::opt
