//===- injectivity_test.cc - Premises that rule out finite models ---------===//
#include "quarry/validate_axioms/injectivity.h"

#include <gtest/gtest.h>

namespace quarry::validate_axioms {
namespace {

std::vector<size_t> all_but(const verify::AxiomFile &f,
                            const std::string &name) {
  std::vector<size_t> out;
  for (size_t i = 0; i < f.axioms.size(); ++i)
    if (!f.axioms[i].is_lemma && f.axioms[i].name != name)
      out.push_back(i);
  return out;
}

TEST(Injectivity, TasoSplitAxiomsMakeConcatInjective) {
  const verify::AxiomFile f =
      verify::read_axiom_file(QUARRY_AXIOMS_DIR "/taso.axioms");
  const auto inj = injective_operator(f, all_but(f, "ewadd_comm"));
  ASSERT_TRUE(inj.has_value());
  EXPECT_EQ(inj->op, "concat");
  EXPECT_EQ(inj->left_axiom, "split0_concat");
  EXPECT_EQ(inj->right_axiom, "split1_concat");
  EXPECT_EQ(describe(*inj), "split0_concat and split1_concat make concat "
                            "injective, so every model with two distinct "
                            "tensors is infinite");
  // Either split axiom alone leaves finite models possible.
  EXPECT_FALSE(injective_operator(f, all_but(f, "split0_concat")));
  EXPECT_FALSE(injective_operator(f, all_but(f, "split1_concat")));
}

TEST(Injectivity, OnlyTheExactShapeCounts) {
  const verify::AxiomFile f = verify::parse_axioms(
      "op concat[axis](x, y)\nop split[axis](x) -> 2\nop relu(x)\n"
      "op ewadd(x, y)\n"
      // Recovers x, but through a fixed axis: injective only at axis 1.
      "axiom s0_fixed: forall x y. split.0(1, concat(1, x, y)) = x\n"
      "axiom s1: forall ax x y. split.1(ax, concat(ax, x, y)) = y\n"
      // Recovers the first operand of ewadd: together with ewadd_second,
      // ewadd is injective although the operator names differ from split's.
      "axiom ewadd_first: forall x y. relu(ewadd(x, y)) = x\n"
      "axiom ewadd_second: forall a x y. split.1(a, ewadd(x, y)) = y\n"
      // Not of the shape: the operand is not a variable on the right.
      "axiom relu_concat: forall ax x y. relu(concat(ax, x, y)) = "
      "concat(ax, relu(x), relu(y))\n",
      "inline.axioms");
  EXPECT_FALSE(injective_operator(f, {0, 1, 4}));
  const auto inj = injective_operator(f, {2, 3, 4});
  ASSERT_TRUE(inj.has_value());
  EXPECT_EQ(inj->op, "ewadd");
  EXPECT_EQ(inj->left_axiom, "ewadd_first");
  EXPECT_EQ(inj->right_axiom, "ewadd_second");
}

} // namespace
} // namespace quarry::validate_axioms
