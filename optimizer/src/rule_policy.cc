//===- rule_policy.cc - Which rule packs the optimizer accepts ------------===//
#include "quarry/optimizer/rule_policy.h"

#include "quarry/core/error.h"

namespace quarry::opt {

void require_proved(const RulePack &pack, const std::string &file,
                    bool allow_unverified) {
  if (allow_unverified)
    return;
  size_t others = 0;
  const Rule *first = nullptr;
  size_t first_index = 0;
  for (size_t i = 0; i < pack.rules.size(); ++i)
    if (pack.rules[i].provenance.status != ProofStatus::Proved) {
      if (!first) {
        first = &pack.rules[i];
        first_index = i;
      }
      ++others;
    }
  if (!first)
    return;
  throw Error(file + ": rule " + std::to_string(first_index) + " '" +
              first->name + "' is " +
              std::string(proof_status_name(first->provenance.status)) +
              ", not proved (" + std::to_string(others) + " of " +
              std::to_string(pack.rules.size()) +
              " rules); prove the pack with quarry verify or pass "
              "--allow-unverified");
}

} // namespace quarry::opt
