//===- entailment_test.cc - Lemmas, redundancy, consistency ---------------===//
#include "quarry/validate_axioms/entailment.h"
#include "quarry/validate_axioms/finite_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

namespace quarry::validate_axioms {
namespace {

const std::string kAxioms = QUARRY_AXIOMS_DIR "/taso.axioms";
const std::string kFixtures = QUARRY_FIXTURES_DIR "/fixtures";

TEST(Entailment, TasoLemmasFollowFromTheAxioms) {
  const verify::AxiomFile f = verify::read_axiom_file(kAxioms);
  EntailmentOptions o;
  o.threads = 2;
  o.timeout_s = 4;
  const auto lemmas = check_lemmas(f, o);
  ASSERT_EQ(lemmas.size(), 5u);
  // Z3's search through the quantified axioms is fragile: since the
  // pooling axioms joined, one of the five (transpose_const_imm) is not
  // found within this budget, nor within five times it. None may be
  // refuted.
  size_t entailed = 0;
  for (const EntailmentResult &e : lemmas) {
    EXPECT_NE(e.answer, Answer::NotEntailed) << e.name << ": " << e.detail;
    if (e.answer != Answer::Entailed)
      continue;
    ++entailed;
    EXPECT_FALSE(e.by.empty()) << e.name;
  }
  EXPECT_GE(entailed, 4u);
  // transpose_concat_cols needs exactly these two axioms.
  EXPECT_EQ(lemmas[3].name, "transpose_concat_cols");
  EXPECT_EQ(lemmas[3].by, (std::vector<std::string>{"transpose_concat",
                                                    "transpose_involution"}));
}

TEST(Entailment, WrongConcatAssociativityMakesAllTensorsEqual) {
  const verify::AxiomFile f =
      verify::read_axiom_file(kFixtures + "/concat_assoc_wrong.axioms");
  EntailmentOptions o;
  o.timeout_s = 5;
  const EntailmentResult c = check_consistency(f, o);
  ASSERT_EQ(c.answer, Answer::Entailed) << c.detail;
  // The minimal set is these three; under load the minimisation may stop
  // early and keep a few more.
  for (const char *a : {"concat_assoc_wrong", "split0_concat", "split1_concat"})
    EXPECT_EQ(std::count(c.by.begin(), c.by.end(), a), 1)
        << a << " in " << ::testing::PrintToString(c.by) << ": " << c.detail;
}

TEST(Entailment, RedundancyNamesTheEntailingSetOrACountermodel) {
  // ewadd_comm2 restates ewadd_comm; relu_idem is independent, and a
  // two-tensor model shows it (relu swapping the tensors).
  const verify::AxiomFile f = verify::parse_axioms(
      "op ewadd(x, y)\nop relu(x)\n"
      "axiom ewadd_comm: forall x y. ewadd(x, y) = ewadd(y, x)\n"
      "axiom ewadd_assoc: forall x y z. ewadd(x, ewadd(y, z)) = "
      "ewadd(ewadd(x, y), z)\n"
      "axiom ewadd_comm2: forall a b. ewadd(b, a) = ewadd(a, b)\n"
      "axiom relu_idem: forall x. relu(relu(x)) = relu(x)\n",
      "inline.axioms");
  EntailmentOptions o;
  const auto r = check_redundancy(f, o);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].answer, Answer::Entailed);
  EXPECT_EQ(r[0].by, std::vector<std::string>{"ewadd_comm2"});
  EXPECT_EQ(r[2].answer, Answer::Entailed);
  EXPECT_EQ(r[2].by, std::vector<std::string>{"ewadd_comm"});
  EXPECT_EQ(r[3].answer, Answer::NotEntailed);
  EXPECT_TRUE(std::regex_search(
      r[3].detail, std::regex("^a model with [0-9]+ tensors where the left "
                              "side is T!val![0-9]+ and the right side "
                              "T!val![0-9]+$")))
      << r[3].detail;
  // Consistent: a two-tensor model of all four exists.
  EXPECT_EQ(check_consistency(f, o).answer, Answer::NotEntailed);
}

TEST(Entailment, DimsEquationsMustHoldOfEveryApplication) {
  // With ewadd commutative, "an ewadd has its first operand's dimensions"
  // makes every two tensors' dimensions equal; "when they agree" does not.
  const std::string axioms =
      "op ewadd(x, y)\n"
      "axiom ewadd_comm: forall x y. ewadd(x, y) = ewadd(y, x)\n";
  EntailmentOptions o;
  o.timeout_s = 1;
  const EntailmentResult wrong = check_consistency(
      verify::parse_axioms(axioms + "dims ewadd: forall x y i. "
                                    "dim(ewadd(x, y), i) = dim(x, i)\n",
                           "wrong.axioms"),
      o);
  ASSERT_EQ(wrong.answer, Answer::Entailed) << wrong.detail;
  EXPECT_EQ(wrong.detail, kDimsInconsistency);
  EXPECT_EQ(wrong.by, std::vector<std::string>{"ewadd_comm"});
  const EntailmentResult right = check_consistency(
      verify::parse_axioms(axioms + "dims ewadd: forall x y i. "
                                    "dim(ewadd(x, y), i) = dim(x, i) "
                                    "when dim(x, i) = dim(y, i)\n",
                           "right.axioms"),
      o);
  EXPECT_NE(right.answer, Answer::Entailed) << right.detail;
}

TEST(Entailment, SplitUndoingConcatRulesOutFiniteCountermodels) {
  // split undoes concat as in taso.axioms. Without split0_concat a finite
  // countermodel exists (concat keeping its second operand, split.0
  // constant); with both split axioms among the premises concat is
  // injective, every countermodel is infinite, and the answer says so.
  const verify::AxiomFile f = verify::parse_axioms(
      "op concat[axis](x, y)\nop split[axis](x) -> 2\nop relu(x)\n"
      "axiom split0_concat: forall ax x y. split.0(ax, concat(ax, x, y)) = "
      "x\n"
      "axiom split1_concat: forall ax x y. split.1(ax, concat(ax, x, y)) = "
      "y\n"
      "axiom relu_concat: forall ax x y. relu(concat(ax, x, y)) = "
      "concat(ax, relu(x), relu(y))\n"
      "axiom relu_idem: forall x. relu(relu(x)) = relu(x)\n",
      "inline.axioms");
  EntailmentOptions o;
  o.timeout_s = 1;
  const auto r = check_redundancy(f, o);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].name, "split0_concat");
  EXPECT_EQ(r[0].answer, Answer::NotEntailed) << r[0].detail;
  EXPECT_NE(r[0].detail.find("a model with 2 tensors"), std::string::npos)
      << r[0].detail;
  EXPECT_EQ(r[3].name, "relu_idem");
  EXPECT_EQ(r[3].answer, Answer::Unknown) << r[3].detail;
  EXPECT_NE(r[3].detail.find("no finite countermodel exists: split0_concat "
                             "and split1_concat make concat injective"),
            std::string::npos)
      << r[3].detail;
}

} // namespace
} // namespace quarry::validate_axioms

namespace quarry::validate_axioms {
namespace {

TEST(FiniteModel, GroundingFindsTwoTensorCountermodels) {
  const verify::AxiomFile f = verify::parse_axioms(
      "op ewadd(x, y)\nop relu(x)\nop concat[axis](x, y)\n"
      "axiom ewadd_comm: forall x y. ewadd(x, y) = ewadd(y, x)\n"
      "axiom relu_concat: forall ax x y. relu(concat(ax, x, y)) = "
      "concat(ax, relu(x), relu(y))\n"
      "axiom relu_idem: forall x. relu(relu(x)) = relu(x)\n"
      "axiom ewadd_comm2: forall a b. ewadd(b, a) = ewadd(a, b)\n",
      "inline.axioms");
  // relu_idem does not follow from the first two: a model with two tensors.
  const auto model = find_finite_model(f, {0, 1}, &f.axioms[2], 2, 5);
  ASSERT_TRUE(model.has_value());
  EXPECT_NE(model->find("a model with 2 tensors"), std::string::npos);
  // ewadd_comm2 follows from ewadd_comm: no model of any size.
  EXPECT_FALSE(find_finite_model(f, {0, 1}, &f.axioms[3], 2, 5).has_value());
  // Two distinct tensors are consistent with all four.
  EXPECT_TRUE(find_finite_model(f, {0, 1, 2, 3}, nullptr, 2, 5).has_value());
}

} // namespace
} // namespace quarry::validate_axioms
