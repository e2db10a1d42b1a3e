//===- rule_policy.cc - Which rule packs the optimizer accepts ------------===//
#include "quarry/optimizer/rule_policy.h"

#include "quarry/core/error.h"

#include <optional>

namespace quarry::opt {

namespace {

/// The first revision of quarry verify whose proofs state the ungrouped
/// kernels a merge of convolutions needs (its `dims` statements).
constexpr int kFirstRevisionWithShapePreconditions = 3;

/// N of a prover named "..., quarry verify rN", or nullopt for another.
std::optional<int> verify_revision(const std::string &prover) {
  static const std::string tag = "quarry verify r";
  const size_t at = prover.rfind(tag);
  if (at == std::string::npos)
    return std::nullopt;
  try {
    return std::stoi(prover.substr(at + tag.size()));
  } catch (const std::exception &) {
    return std::nullopt;
  }
}

} // namespace

void require_proved(const RulePack &pack, const std::string &file,
                    bool allow_unverified) {
  if (allow_unverified)
    return;
  for (size_t i = 0; i < pack.rules.size(); ++i) {
    const Provenance &p = pack.rules[i].provenance;
    const std::optional<int> revision = verify_revision(p.prover);
    if (p.status == ProofStatus::Proved && revision &&
        *revision < kFirstRevisionWithShapePreconditions)
      throw Error(file + ": rule " + std::to_string(i) + " '" +
                  pack.rules[i].name + "' was proved by '" + p.prover +
                  "', before r" +
                  std::to_string(kFirstRevisionWithShapePreconditions) +
                  " stated the shape preconditions of convolution merges; "
                  "prove the pack again with quarry verify");
  }
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
