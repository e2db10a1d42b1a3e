//===- axiom_numeric_test.cc - Axioms hold on their small shapes ----------===//
//
// Every axiom and lemma of axioms/taso.axioms is instantiated on random
// members of its small-shape domain and both sides are evaluated, exactly in
// the field and in float: they must agree. A wrong axiom (TASO's grouped
// convolution without its precondition) must not.
//
//===----------------------------------------------------------------------===//
#include "quarry/verify/axiom_instance.h"
#include "quarry/verify/numeric_check.h"

#include "verify_test_util.h"

#include <gtest/gtest.h>

namespace quarry::verify {
namespace {

using testing::taso_axioms;

TEST(AxiomNumeric, EveryTasoAxiomHoldsOnRandomValidShapes) {
  const AxiomFile &f = taso_axioms();
  for (const Axiom &a : f.axioms) {
    const auto instances = sample_instances(f, a, /*seed=*/7, /*count=*/5);
    EXPECT_FALSE(instances.empty()) << a.name << ": no valid instance";
    for (const AxiomInstance &inst : instances) {
      const NumericComparison c =
          compare_numerically(inst.lhs, inst.rhs, /*seed=*/3);
      EXPECT_TRUE(c.shapes_equal) << a.name << " at " << inst.str();
      EXPECT_TRUE(c.field_equal) << a.name << " at " << inst.str();
      EXPECT_TRUE(c.float_close) << a.name << " at " << inst.str()
                                 << ": max |diff| " << c.float_max_diff;
    }
  }
}

TEST(AxiomNumeric, CatchesAWrongAxiom) {
  // TASO's commented-out grouped convolution: wrong when the channel counts
  // of the two inputs differ.
  const AxiomFile f = parse_axioms(
      "op conv2d[s, pad, act](x, w)\nop concat[axis](x, y)\n"
      "axiom wrong: forall x1 w1 x2 w2. concat(1, conv2d([1,1], same, none, "
      "x1, w1), conv2d([1,1], same, none, x2, w2)) = conv2d([1,1], same, "
      "none, concat(1, x1, x2), concat(0, w1, w2))\n"
      "  shapes x1: [1, c1, 3, 3], x2: [1, c2, 3, 3], w1: [o1, 1, 3, 3], "
      "w2: [o2, 1, 3, 3]\n"
      "  values c1 c2 o1 o2 in 1..3\n"
      "  if o1 % c1 = 0 and o2 % c2 = 0 and (o1 + o2) % (c1 + c2) = 0\n",
      "wrong.axioms");
  int wrong = 0, total = 0;
  for (const AxiomInstance &inst :
       sample_instances(f, f.axioms[0], /*seed=*/1, /*count=*/12)) {
    ++total;
    wrong += compare_numerically(inst.lhs, inst.rhs, 5).definitely_different();
  }
  EXPECT_GT(total, 3);
  EXPECT_GT(wrong, 0);
}

TEST(AxiomNumeric, EvaluatesDomainConditions) {
  const Axiom &a = *taso_axioms().find_axiom("enlarge_conv");
  Assignment v{{"k", {3, 1}}, {"kh", {1}}, {"kw", {1}},
               {"c", {2}},    {"ci", {1}}, {"co", {2}}};
  EXPECT_TRUE(condition_holds(a, v));
  v["kw"] = {3};
  EXPECT_FALSE(condition_holds(a, v)); // the kernel does not fit
  EXPECT_GT(domain_size(a), 1000u);
}

} // namespace
} // namespace quarry::verify
