//===- shape_search_test.cc - Variable shapes that type-check a rule ------===//
#include "quarry/core/error.h"
#include "quarry/verify/numeric_check.h"
#include "quarry/verify/refute.h"
#include "quarry/verify/shape_search.h"

#include <gtest/gtest.h>

namespace quarry::verify {
namespace {

const std::vector<Shape> kSmall = {Shape{2, 2}, Shape{2, 3}, Shape{3, 2},
                                   Shape{2, 2, 3, 3}};

/// Whether both sides type-check at `shapes` with outputs of equal shapes.
bool fits(const Rule &r, const std::map<std::string, Shape> &shapes) {
  try {
    const Graph a = with_variable_shapes(r.source, shapes);
    const Graph b = with_variable_shapes(r.target, shapes);
    for (size_t i = 0; i < a.outputs().size(); ++i)
      if (a.type(a.outputs()[i])->shape != b.type(b.outputs()[i])->shape)
        return false;
    return true;
  } catch (const Error &) {
    return false;
  }
}

TEST(ShapeSearch, FindsAMatrixTwiceAsWideAsTall) {
  // matmul(x, concat(x, x)) needs x of shape [n, 2n]: no small uniform
  // shape fits it, and the pool holds no such matrix until [1, 2] is
  // offered.
  const Rule r = parse_rule(
      "wide", "input x\ny = matmul(x, concat[axis=0](x, x))\noutput y\n",
      "input x\ny = matmul(x, concat[axis=0](x, x))\noutput y\n");
  EXPECT_TRUE(search_shapes(r, kSmall, {}).empty());
  std::vector<Shape> pool = kSmall;
  pool.push_back(Shape{1, 2});
  const auto found = search_shapes(r, pool, {});
  ASSERT_EQ(found.size(), 1u); // [1, 2] is the only one
  EXPECT_EQ(found[0].at("x"), (Shape{1, 2}));
  EXPECT_TRUE(fits(r, found[0]));
}

TEST(ShapeSearch, TakesShapesFromTheRulesConstants) {
  const Rule r = parse_rule(
      "plus_imm",
      "input x\ninput y\nt = ewadd(ewadd(x, const_imm[shape=4,4]()), y)\n"
      "output t\n",
      "input x\ninput y\nt = ewadd(x, ewadd(y, const_imm[shape=4,4]()))\n"
      "output t\n");
  const auto found = search_shapes(r, kSmall, {});
  ASSERT_FALSE(found.empty());
  for (const auto &shapes : found) {
    EXPECT_EQ(shapes.at("x"), (Shape{4, 4}));
    EXPECT_TRUE(fits(r, shapes));
  }
}

TEST(ShapeSearch, GivesUnconnectedPartsTheirOwnRanks) {
  // A transpose beside a convolution: no one shape fits both.
  const Rule r = parse_rule(
      "two_parts",
      "input x\ninput i\nweight k\na = transpose[perm=1,0 shuffle=0](x)\n"
      "b = conv2d[s=1,1 pad=same act=none](i, k)\noutput a, b\n",
      "input x\ninput i\nweight k\na = transpose[perm=1,0 shuffle=1](x)\n"
      "b = conv2d[s=1,1 pad=same act=none](i, k)\noutput a, b\n");
  const auto found = search_shapes(r, kSmall, {});
  ASSERT_EQ(found.size(), 2u);
  for (const auto &shapes : found) {
    EXPECT_EQ(shapes.at("x").rank(), 2);
    EXPECT_EQ(shapes.at("i").rank(), 4);
    EXPECT_TRUE(fits(r, shapes));
  }
  // Refutation and derivation try them.
  const auto choices = shape_choices(r, 1, 16);
  EXPECT_TRUE(std::any_of(choices.begin(), choices.end(),
                          [&](const auto &s) { return fits(r, s); }));
}

TEST(ShapeSearch, NothingWhenNoShapesFitAndWithinItsBudget) {
  // Outputs of shapes [4,4] and [3,3] never agree.
  const Rule r = parse_rule(
      "never", "input x\nt = ewadd(x, const_imm[shape=4,4]())\noutput t\n",
      "input x\nt = ewadd(x, const_imm[shape=3,3]())\noutput t\n");
  EXPECT_TRUE(search_shapes(r, kSmall, {}).empty());
  const Rule wide = parse_rule(
      "wide", "input x\ny = matmul(x, concat[axis=0](x, x))\noutput y\n",
      "input x\ny = matmul(x, concat[axis=0](x, x))\noutput y\n");
  ShapeSearchOptions one;
  one.max_inferred = 1; // the concat, and no matmul after it
  EXPECT_TRUE(search_shapes(wide, {Shape{1, 2}}, {}, one).empty());
  EXPECT_EQ(search_shapes(wide, {Shape{1, 2}}, {}).size(), 1u);
}

} // namespace
} // namespace quarry::verify
