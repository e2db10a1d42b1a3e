//===- float_only_test.cc - Float-only operators against hand computation -===//
#include "float_eval_helpers.h"
#include "quarry/core/ops/broadcast.h"

#include <gtest/gtest.h>

#include <cmath>

namespace quarry {
namespace {

using namespace quarry::testing;

TEST(FloatOnly, Pointwise) {
  T x({4}, {-2, -0.5, 1, 4});
  expect_values(run("input x\ny = pointwise[fn=leaky_relu alpha=0.1](x)\n"
                    "output y",
                    {{"x", x}}),
                {4}, {-0.2f, -0.05f, 1, 4});
  expect_values(
      run("input x\ny = pointwise[fn=clip alpha=-1 beta=2](x)\noutput y",
          {{"x", x}}),
      {4}, {-1, -0.5, 1, 2});
  expect_values(
      run("input x\ny = pointwise[fn=hard_swish](x)\noutput y", {{"x", x}}),
      {4}, {-2 * (1.0f / 6), -0.5f * (2.5f / 6), 4.0f / 6, 4});
}

TEST(FloatOnly, BroadcastRepeatsUnitAxes) {
  T x({2, 3}, {1, 2, 3, 4, 5, 6}), b({3}, {10, 20, 30}), c({2, 1}, {2, 4});
  expect_values(run("input x\ninput b\ny = broadcast[fn=add](x, b)\noutput y",
                    {{"x", x}, {"b", b}}),
                {2, 3}, {11, 22, 33, 14, 25, 36});
  expect_values(run("input x\ninput c\ny = broadcast[fn=div](x, c)\noutput y",
                    {{"x", x}, {"c", c}}),
                {2, 3}, {0.5, 1, 1.5, 1, 1.25, 1.5});
  EXPECT_THROW(parse_graph("input x: [2,3]\ninput y: [2]\n"
                           "z = broadcast(x, y)\noutput z"),
               Error);
  // An empty axis stays empty against a unit one (folded constants have
  // them: an empty Range).
  EXPECT_EQ(ops::broadcast_shape("add", Shape{0}, Shape{}), Shape{0});
  EXPECT_EQ(ops::broadcast_shape("add", Shape{1, 3}, Shape{0, 1}),
            (Shape{0, 3}));
}

TEST(FloatOnly, ComparisonsGiveOneWhereTheyHold) {
  T x({2, 2}, {1, 2, 3, NAN}), b({2}, {2, 2});
  const std::vector<std::pair<std::string, std::vector<float>>> want = {
      {"eq", {0, 1, 0, 0}}, {"ne", {1, 0, 1, 1}}, {"lt", {1, 0, 0, 0}},
      {"le", {1, 1, 0, 0}}, {"gt", {0, 0, 1, 0}}, {"ge", {0, 1, 1, 0}}};
  for (const auto &[fn, values] : want)
    expect_values(
        run("input x\ninput b\ny = broadcast[fn=" + fn + "](x, b)\noutput y",
            {{"x", x}, {"b", b}}),
        {2, 2}, values);
}

TEST(FloatOnly, WhereReadsOnlyTheChosenOperand) {
  // The condition broadcasts over rows, y over columns; the infinity in
  // x is never chosen.
  T c({2, 1}, {1, 0}), x({2, 3}, {1, 2, 3, INFINITY, 5, 6}), y({3}, {7, 8, 9});
  expect_values(run("input c\ninput x\ninput y\nz = where(c, x, y)\noutput z",
                    {{"c", c}, {"x", x}, {"y", y}}),
                {2, 3}, {1, 2, 3, 7, 8, 9});
  EXPECT_THROW(parse_graph("input c: [2]\ninput x: [3]\ninput y: [3]\n"
                           "z = where(c, x, y)\noutput z"),
               Error);
}

TEST(FloatOnly, SoftmaxAndReduceMean) {
  T x({2, 2}, {0, std::log(3.0f), 1, 1});
  expect_values(run("input x\ny = softmax[axis=1](x)\noutput y", {{"x", x}}),
                {2, 2}, {0.25, 0.75, 0.5, 0.5});
  T z({2, 3}, {1, 2, 3, 4, 5, 6});
  expect_values(run("input z\ny = reduce_mean[axes=0 keepdims=0](z)\noutput y",
                    {{"z", z}}),
                {3}, {2.5, 3.5, 4.5});
  expect_values(
      run("input z\ny = reduce_mean[axes=-1](z)\noutput y", {{"z", z}}), {2, 1},
      {2, 5});
}

TEST(FloatOnly, HardmaxMarksTheFirstMaximum) {
  // Rows, then columns; ties go to the lowest index.
  T x({2, 3}, {1, 3, 3, 2, 2, -1});
  expect_values(run("input x\ny = hardmax(x)\noutput y", {{"x", x}}), {2, 3},
                {0, 1, 0, 1, 0, 0});
  expect_values(run("input x\ny = hardmax[axis=0](x)\noutput y", {{"x", x}}),
                {2, 3}, {0, 1, 1, 1, 0, 0});
}

TEST(FloatOnly, GridSampleMapsPointsOntoPixels) {
  T x({1, 1, 2, 2}, {1, 2, 3, 4});
  // Points (x, y): the top-left corner, the centre, the bottom-right corner.
  T grid({1, 1, 3, 2}, {-1, -1, 0, 0, 1, 1});
  auto sample = [&](const std::string &attrs) {
    return run("input x\ninput g\ny = grid_sample[" + attrs +
                   "](x, g)\noutput y",
               {{"x", x}, {"g", grid}});
  };
  // align=1: -1 and 1 are the corner pixels' centres.
  expect_values(sample("align=1"), {1, 1, 1, 3}, {1, 2.5, 4});
  // align=0: they are the corners' outer edges, half a pixel further out;
  // zeros reads 0 there, border the edge pixel.
  expect_values(sample("align=0"), {1, 1, 1, 3}, {0.25, 2.5, 1});
  expect_values(sample("pad=border"), {1, 1, 1, 3}, {1, 2.5, 4});
  // Nearest rounds the centre (0.5, 0.5) half to even: pixel (0, 0).
  expect_values(sample("mode=nearest align=1"), {1, 1, 1, 3}, {1, 1, 4});
  // A point far outside, mirrored: reflection's flip count leaves 64 bits.
  T far({1, 1, 1, 2}, {3e30f, 0});
  const auto y = run("input x\ninput g\ny = grid_sample[pad=reflection](x, "
                     "g)\noutput y",
                     {{"x", x}, {"g", far}});
  ASSERT_EQ(y.shape, (Shape{1, 1, 1, 1}));
  EXPECT_GE(y[0], 1); // somewhere within the image's values
  EXPECT_LE(y[0], 4);
}

/// gather_elements[attrs](x, i) of the given x and indices.
T gather_elements(const std::string &attrs, const T &x, const T &i) {
  return run("input x\ninput i\ny = gather_elements[" + attrs +
                 "](x, i)\noutput y",
             {{"x", x}, {"i", i}});
}

TEST(FloatOnly, GatherElementsPicksAlongTheAxis) {
  // ONNX's examples: along rows (axis 1) and along columns (axis 0).
  expect_values(gather_elements("axis=1", T({2, 2}, {1, 2, 3, 4}),
                                T({2, 2}, {0, 0, 1, 0})),
                {2, 2}, {1, 1, 4, 3});
  const T x({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  expect_values(gather_elements("axis=0", x, T({2, 3}, {1, 2, 0, 2, 0, 0})),
                {2, 3}, {4, 8, 3, 7, 2, 3});
  // A negative index counts from the end of the axis.
  expect_values(gather_elements("axis=0", x, T({2, 3}, {-1, -2, 0, -2, 0, 0})),
                {2, 3}, {7, 5, 3, 4, 2, 3});
  // A negative axis counts from the last; the axis is 0 by default.
  expect_values(gather_elements("axis=-1", x, T({3, 1}, {2, 0, -3})), {3, 1},
                {3, 4, 7});
  expect_values(gather_elements("", x, T({1, 3}, {2, 1, 0})), {1, 3},
                {7, 5, 3});
}

TEST(FloatOnly, GatherElementsIndicesSmallerThanX) {
  // x[i,j,k] = 6i + 2j + k; indices [1,2,1] along axis 1 read x[0,j',0].
  T x({2, 3, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  expect_values(gather_elements("axis=-2", x, T({1, 2, 1}, {2, 0})), {1, 2, 1},
                {4, 0});
  // Longer than x along the axis itself: indices repeat.
  expect_values(gather_elements("axis=1", x, T({1, 4, 1}, {0, 0, 1, 2})),
                {1, 4, 1}, {0, 0, 2, 4});
}

TEST(FloatOnly, GatherElementsRefusesBadShapesAndIndices) {
  const T x({2, 3}, {1, 2, 3, 4, 5, 6});
  // Indices past the extent, or not integers, are errors, not reads.
  EXPECT_THROW(gather_elements("axis=1", x, T({2, 1}, {3, 0})), Error);
  EXPECT_THROW(gather_elements("axis=1", x, T({2, 1}, {-4, 0})), Error);
  EXPECT_THROW(gather_elements("axis=1", x, T({2, 1}, {0.5f, 0})), Error);
  EXPECT_THROW(gather_elements("axis=1", x, T({2, 1}, {NAN, 0})), Error);
  EXPECT_THROW(parse_graph("input x: [2,3]\ninput i: [6]\n"
                           "y = gather_elements(x, i)\noutput y"),
               Error);
  EXPECT_THROW(parse_graph("input x: [2,3]\ninput i: [2,4]\n"
                           "y = gather_elements(x, i)\noutput y"),
               Error);
  EXPECT_THROW(parse_graph("input x: [2,3]\ninput i: [2,3]\n"
                           "y = gather_elements[axis=2](x, i)\noutput y"),
               Error);
}

TEST(FloatOnly, ReductionsOverAxes) {
  T z({2, 3}, {1, -2, 3, 4, 5, 6});
  auto reduce = [&](const std::string &fn, const std::string &axes) {
    return run("input z\ny = reduce[fn=" + fn + " axes=" + axes +
                   " keepdims=0](z)\noutput y",
               {{"z", z}});
  };
  expect_values(reduce("sum", "1"), {2}, {2, 15});
  expect_values(reduce("max", "0"), {3}, {4, 5, 6});
  expect_values(reduce("min", "0,1"), {}, {-2});
  expect_values(reduce("prod", "1"), {2}, {-6, 120});
  expect_values(reduce("l1", "1"), {2}, {6, 15});
  expect_values(reduce("l2", "0"), {3},
                {std::sqrt(17.0f), std::sqrt(29.0f), std::sqrt(45.0f)});
  expect_values(reduce("sum_square", "1"), {2}, {14, 77});
  expect_values(reduce("log_sum", "0"), {3},
                {std::log(5.0f), std::log(3.0f), std::log(9.0f)});
  // Large values: the largest is taken out before exponentiating.
  T big({1, 2}, {1000, 1000});
  expect_values(run("input b\ny = reduce[fn=log_sum_exp axes=1](b)\noutput y",
                    {{"b", big}}),
                {1, 1}, {1000 + std::log(2.0f)});
}

TEST(FloatOnly, MorePointwiseFunctions) {
  T x({4}, {-2, -0.5, 0.5, 2.5});
  auto pointwise = [&](const std::string &attrs) {
    return run("input x\ny = pointwise[" + attrs + "](x)\noutput y",
               {{"x", x}});
  };
  expect_values(pointwise("fn=round"), {4}, {-2, -0.0f, 0, 2});
  expect_values(pointwise("fn=sign"), {4}, {-1, -1, 1, 1});
  expect_values(pointwise("fn=thresholded_relu alpha=1"), {4}, {0, 0, 0, 2.5});
  expect_values(pointwise("fn=shrink alpha=1 beta=0.5"), {4}, {-1.5, 0, 0, 2});
  expect_values(pointwise("fn=elu alpha=2"), {4},
                {2 * std::expm1(-2.0f), 2 * std::expm1(-0.5f), 0.5, 2.5});
  // An unbounded clip prints and parses its infinite bound; NaN is no bound.
  expect_values(pointwise("fn=clip alpha=-1 beta=inf"), {4},
                {-1, -0.5, 0.5, 2.5});
  EXPECT_THROW(pointwise("fn=clip alpha=nan beta=1"), Error);
  expect_values(pointwise("fn=softsign"), {4},
                {-2.0f / 3, -0.5f / 1.5f, 0.5f / 1.5f, 2.5f / 3.5f});
}

TEST(FloatOnly, PadModes) {
  T x({1, 3}, {1, 2, 3});
  auto pad = [&](const std::string &mode) {
    return run("input x\ny = pad[pads=0,2,0,1 value=9 mode=" + mode +
                   "](x)\noutput y",
               {{"x", x}});
  };
  expect_values(pad("constant"), {1, 6}, {9, 9, 1, 2, 3, 9});
  expect_values(pad("reflect"), {1, 6}, {3, 2, 1, 2, 3, 2});
  expect_values(pad("edge"), {1, 6}, {1, 1, 1, 2, 3, 3});
  // Reflecting needs more elements than the pad.
  EXPECT_THROW(run("input x\ny = pad[pads=0,3,0,0 mode=reflect](x)\noutput y",
                   {{"x", x}}),
               Error);
}

TEST(FloatOnly, SliceClampsAndSteps) {
  T x({2, 5}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  expect_values(run("input x\ny = slice[starts=1 ends=1000 axes=1 steps=2](x)"
                    "\noutput y",
                    {{"x", x}}),
                {2, 2}, {1, 3, 6, 8});
  expect_values(run("input x\ny = slice[starts=-1 ends=-1000 axes=1 "
                    "steps=-2](x)\noutput y",
                    {{"x", x}}),
                {2, 3}, {4, 2, 0, 9, 7, 5});
  // Stepping backwards, a start before the axis clamps to its first index.
  expect_values(run("input x\ny = slice[starts=-1000 ends=-1000 axes=1 "
                    "steps=-1](x)\noutput y",
                    {{"x", x}}),
                {2, 1}, {0, 5});
}

TEST(FloatOnly, PadAndExplicitPools) {
  T x({1, 1, 2, 2}, {1, 2, 3, 4});
  expect_values(
      run("input x\ny = pad[pads=0,0,1,0,0,0,0,1](x)\noutput y", {{"x", x}}),
      {1, 1, 3, 3}, {0, 0, 0, 1, 2, 0, 3, 4, 0});
  // 2x2 windows over pads 1 on top/left: the first window sees only x[0].
  expect_values(run("input x\ny = pool2d_explicit[fn=avg k=2,2 s=1,1 "
                    "pads=1,1,0,0](x)\noutput y",
                    {{"x", x}}),
                {1, 1, 2, 2}, {1, 1.5, 2, 2.5});
  expect_values(run("input x\ny = pool2d_explicit[fn=avg k=2,2 s=1,1 "
                    "pads=1,1,0,0 count_pad=1](x)\noutput y",
                    {{"x", x}}),
                {1, 1, 2, 2}, {0.25, 0.75, 1, 2.5});
  expect_values(run("input x\ny = pool2d_explicit[fn=max k=2,2 s=1,1 "
                    "pads=1,1,0,0](x)\noutput y",
                    {{"x", x}}),
                {1, 1, 2, 2}, {1, 2, 3, 4});
}

TEST(FloatOnly, DilatedAndCeilModePools) {
  // 4x4 input 0..15, row-major.
  std::vector<float> v(16);
  for (int i = 0; i < 16; ++i)
    v[i] = static_cast<float>(i);
  T x({1, 1, 4, 4}, v);
  // 2x2 taps two apart span 3x3: windows at 0 and 1 on each axis.
  expect_values(run("input x\ny = pool2d_explicit[fn=max k=2,2 d=2,2](x)\n"
                    "output y",
                    {{"x", x}}),
                {1, 1, 2, 2}, {10, 11, 14, 15});
  // 3x3 windows, stride 2: rounding up adds a window at 2 that reaches
  // past the input; max and the average of what it covers.
  expect_values(run("input x\ny = pool2d_explicit[fn=max k=3,3 s=2,2 "
                    "ceil=1](x)\noutput y",
                    {{"x", x}}),
                {1, 1, 2, 2}, {10, 11, 14, 15});
  expect_values(run("input x\ny = pool2d_explicit[fn=avg k=3,3 s=2,2 "
                    "ceil=1](x)\noutput y",
                    {{"x", x}}),
                {1, 1, 2, 2}, {5, 6.5, 11, 12.5});
  // A window that would start in the trailing pad is dropped: 5 wide,
  // k 2, s 2 and 2 padded after round up to a 4th window at 6, wholly in
  // the pad; it is left out.
  T row({1, 1, 1, 5}, {1, 2, 3, 4, 5});
  expect_values(run("input x\ny = pool2d_explicit[fn=max k=1,2 s=1,2 "
                    "pads=0,0,0,2 ceil=1](x)\noutput y",
                    {{"x", row}}),
                {1, 1, 1, 3}, {2, 4, 5});
  EXPECT_THROW(run("input x\ny = pool2d_explicit[fn=avg k=2,2 d=2,2](x)\n"
                   "output y",
                   {{"x", x}}),
               Error);
  // A window whose span leaves 64 bits is refused, not wrapped around.
  EXPECT_THROW(run("input x\ny = pool2d_explicit[fn=max k=4294967296,2 "
                   "d=4294967296,1](x)\noutput y",
                   {{"x", x}}),
               Error);
}

TEST(FloatOnly, ConvTransposeScatters) {
  // Stride 2, 2x2 kernel, no overlap: every input pixel becomes a block.
  T x({1, 1, 1, 2}, {1, 2}), w({1, 1, 2, 2}, {1, 2, 3, 4});
  expect_values(
      run("input x\nweight w\ny = conv_transpose[s=2,2](x, w)\noutput y",
          {{"x", x}, {"w", w}}),
      {1, 1, 2, 4}, {1, 2, 2, 4, 3, 4, 6, 8});
}

TEST(FloatOnly, ResizeNearestAndLinear) {
  T x({1, 1, 1, 2}, {1, 3});
  expect_values(
      run("input x\ny = resize[shape=1,1,1,4](x)\noutput y", {{"x", x}}),
      {1, 1, 1, 4}, {1, 1, 3, 3});
  expect_values(run("input x\ny = resize[shape=1,1,1,4 mode=linear](x)\n"
                    "output y",
                    {{"x", x}}),
                {1, 1, 1, 4}, {1, 1.5, 2.5, 3});
  expect_values(run("input x\ny = resize[shape=1,1,1,3 mode=linear "
                    "coord=align_corners](x)\noutput y",
                    {{"x", x}}),
                {1, 1, 1, 3}, {1, 2, 3});
}

TEST(FloatOnly, TextRoundTripAndTraits) {
  const std::string text = "input x: [1,2,4,4]\nweight w: [2,3,2,2]\n"
                           "y = resize[shape=1,3,8,8 mode=linear coord="
                           "asymmetric nearest=floor](conv_transpose[s=2,2 "
                           "groups=1](x, w))\noutput y\n";
  Graph g = parse_graph(text);
  Graph back = parse_graph(print_graph(g));
  EXPECT_TRUE(structurally_equal(g, back));
  EXPECT_EQ(g.type(g.outputs()[0])->shape, (Shape{1, 3, 8, 8}));
  EXPECT_TRUE(op_info(OpKind::Resize).traits.float_only);
  EXPECT_FALSE(op_info(OpKind::Conv2D).traits.float_only);
}

} // namespace
} // namespace quarry
