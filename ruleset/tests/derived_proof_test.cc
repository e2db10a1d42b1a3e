//===- derived_proof_test.cc - Proofs by rules proved before --------------===//
#include "quarry/ruleset/derived_proof.h"
#include "quarry/verify/axiom_file.h"

#include <gtest/gtest.h>

namespace quarry::ruleset {
namespace {

const char *kRegrouped =
    "input x\ninput y\ninput z\nw = ewadd(x, ewadd(y, z))\n"
    "output w\n";
const char *kGrouped = "input x\ninput y\ninput z\nw = ewadd(ewadd(x, y), z)\n"
                       "output w\n";

Rule proved(Rule r, std::vector<std::string> axioms) {
  r.provenance.status = ProofStatus::Proved;
  r.provenance.axioms = std::move(axioms);
  return r;
}

RulePack known_pack() {
  RulePack p;
  p.rules = {
      proved(parse_rule("regroup", kGrouped, kRegrouped), {"ewadd_assoc"}),
      proved(parse_rule("relu_twice", "input x\ny = relu(relu(x))\noutput y\n",
                        "input x\ny = relu(x)\noutput y\n"),
             {"relu_idempotent"}),
  };
  return p;
}

TEST(DerivedProof, ProvesWhatKnownRulesDeriveInEitherDirection) {
  size_t usable = 0;
  const verify::ProveFirst prove =
      derivation_prover(known_pack(), "k.pb", {}, &usable);
  EXPECT_EQ(usable, 2u);
  // The known rule read backwards, then relu_twice forwards.
  const Rule r = parse_rule(
      "candidate",
      "input x\ninput y\ninput z\nw = relu(relu(ewadd(x, ewadd(y, z))))\n"
      "output w\n",
      "input x\ninput y\ninput z\nw = relu(ewadd(ewadd(x, y), z))\noutput w\n");
  const std::optional<verify::RuleResult> res = prove(r);
  ASSERT_TRUE(res);
  EXPECT_EQ(res->outcome, verify::Outcome::Proved);
  EXPECT_EQ(res->axioms,
            (std::vector<std::string>{"ewadd_assoc", "relu_idempotent"}));
  ASSERT_EQ(res->derivation.size(), 2u);
  EXPECT_NE(res->detail.find("derived from k.pb by "), std::string::npos)
      << res->detail;
  // What the known rules do not rewrite stays with Z3.
  EXPECT_FALSE(prove(parse_rule("other", "input x\ny = relu(x)\noutput y\n",
                                "input x\ny = ewadd(x, x)\noutput y\n")));
}

TEST(DerivedProof, UsesNoUnprovedOrPreconditionedRule) {
  RulePack p = known_pack();
  p.rules[0].provenance.status = ProofStatus::Unproved;
  p.rules[1].preconditions = {{"x", 0, "x", 1}};
  size_t usable = 9;
  const verify::ProveFirst prove = derivation_prover(p, "k.pb", {}, &usable);
  EXPECT_EQ(usable, 0u);
  EXPECT_FALSE(prove(parse_rule("c", kRegrouped, kGrouped)));
}

TEST(DerivedProof, VerifierTakesTheDerivationBeforeZ3) {
  verify::VerifyOptions o;
  o.prove_first = derivation_prover(known_pack(), "k.pb");
  // The axioms do not matter: Z3 is never asked.
  verify::AxiomFile none;
  const Rule r = parse_rule("c", kRegrouped, kGrouped);
  const verify::RuleResult res = verify::verify_rule(none, r, o);
  EXPECT_EQ(res.outcome, verify::Outcome::Proved);
  EXPECT_EQ(res.name, "c");
  // One step: matching ignores the order of ewadd's operands.
  EXPECT_EQ(res.derivation.size(), 1u);
  const Rule recorded = verify::record_proof(r, res);
  EXPECT_EQ(recorded.provenance.prover, verify::kDerivationProver);
  EXPECT_EQ(recorded.provenance.axioms,
            std::vector<std::string>{"ewadd_assoc"});
}

} // namespace
} // namespace quarry::ruleset
