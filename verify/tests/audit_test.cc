//===- audit_test.cc - What Z3 alone proves is true -----------------------===//
//
// The float check refutes most false candidates before Z3 sees them, which
// also hides a prover that would prove them. Here Z3 decides alone (no
// float check, as `quarry verify --no-refute`), and every rule it proves
// must then survive the float check at three seeds and at the shape
// search's shapes, wherever its preconditions hold. The samples: what the
// float check refutes among the 3-operator candidates (`k3_refuted.pb`),
// the five rules prover revision 4 proved from const_pool_conv without its
// channel condition (`const_pool_r4.pb`), and a sixteenth of the shipped
// 3-operator pack.
//
//===----------------------------------------------------------------------===//
#include "quarry/rulepack/rule_pack_io.h"
#include "quarry/testing/sanitized.h"
#include "quarry/verify/refute.h"
#include "quarry/verify/verifier.h"

#include "verify_test_util.h"

#include <gtest/gtest.h>

namespace quarry::verify {
namespace {

using testing::taso_axioms;

const std::string kData = QUARRY_VERIFY_DATA_DIR;

/// Z3 alone on `rules`; every rule it proves is checked with floats.
/// Returns how many it proved.
size_t audit(const std::vector<Rule> &rules) {
  VerifyOptions o;
  o.refute = false;
  o.timeout_s = 0.5;
  o.threads = 2;
  const std::vector<RuleResult> results = verify_rules(taso_axioms(), rules, o);
  size_t proved = 0;
  for (size_t i = 0; i < rules.size(); ++i) {
    const RuleResult &r = results[i];
    if (r.outcome != Outcome::Proved &&
        r.outcome != Outcome::ProvedWithPrecondition)
      continue;
    ++proved;
    for (uint64_t seed : {1, 2, 3}) {
      const auto c =
          find_counterexample(rules[i], seed, 48, [&](const auto &shapes) {
            return all_hold(r.preconditions, shapes);
          });
      EXPECT_FALSE(c && c->values_differ &&
                   all_hold(r.preconditions, c->shapes))
          << rules[i].name << " (proved by Z3 from "
          << ::testing::PrintToString(r.axioms) << ", "
          << r.preconditions.size() << " preconditions) at seed " << seed
          << ": " << c->description;
    }
  }
  return proved;
}

TEST(Audit, ConstPoolRulesOfRevisionFourAreNotProvedUnconditionally) {
  const RulePack pack = read_rule_pack(kData + "/const_pool_r4.pb");
  ASSERT_EQ(pack.rules.size(), 5u);
  VerifyOptions o;
  o.refute = false;
  o.timeout_s = 1;
  o.threads = 2;
  for (const RuleResult &r : verify_rules(taso_axioms(), pack.rules, o))
    EXPECT_NE(r.outcome, Outcome::Proved) << r.name << ": " << r.detail;
  audit(pack.rules);
}

TEST(Audit, WhatZ3AloneProvesOfTheRefutedCandidatesIsTrue) {
  QUARRY_SKIP_UNDER_SANITIZERS("100 candidates proved one by one; the audit "
                               "of the shipped pack runs there");
  const RulePack pack = read_rule_pack(kData + "/k3_refuted.pb");
  ASSERT_EQ(pack.rules.size(), 100u);
  // Before revision 7 Z3 proved 17 of them from const_pool_conv.
  EXPECT_EQ(audit(pack.rules), 0u);
}

TEST(Audit, WhatZ3AloneProvesOfTheShippedPackIsTrue) {
  // Every 16th rule of the 3-operator pack: Z3 proves most alone, and the
  // float check finds every one of those true.
  const RulePack pack = read_rule_pack(QUARRY_VERIFIED_RULES_FILE);
  std::vector<Rule> sample;
  for (size_t i = 0; i < pack.rules.size(); i += 16)
    sample.push_back(pack.rules[i]);
  EXPECT_GT(audit(sample), sample.size() / 2);
}

} // namespace
} // namespace quarry::verify
