#include "quarry/core/error.h"
#include "quarry/enumerate/gen_config.h"

#include <gtest/gtest.h>

namespace quarry {
namespace {

std::string error_of(std::string_view text) {
  try {
    parse_gen_config(text, "t.gen");
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

TEST(GenConfig, TasoConfigHasTasoSearchSpace) {
  const GenConfig cfg = read_gen_config(QUARRY_SOURCE_DIR "/configs/taso.gen");
  EXPECT_EQ(cfg.variables.size(), 20u);
  // matmul, ewadd, ewmul, conv x2, pools x2, constants x4, enlarge,
  // scalar_mul, relu, concat x2, split x2, transpose x2.
  EXPECT_EQ(cfg.ops.size(), 20u);
  EXPECT_EQ(cfg.variables[1].name, "x2");
  EXPECT_EQ(cfg.variables[1].index_in_group, 1);
  EXPECT_EQ(cfg.variables.back().name, "s");
  EXPECT_EQ(cfg.variables.back().shape.rank(), 0);
  int relu_convs = 0;
  for (const GenOp &op : cfg.ops)
    relu_convs += op.label == "conv2d[s=1,1 pad=same act=relu]";
  EXPECT_EQ(relu_convs, 1);
}

TEST(GenConfig, AlternativesExpand) {
  const GenConfig cfg = parse_gen_config(
      "input x 2x2\nop concat axis=0|1 order=increasing\n", "t.gen");
  ASSERT_EQ(cfg.ops.size(), 2u);
  EXPECT_EQ(cfg.ops[0].arity, 2);
  EXPECT_EQ(cfg.ops[1].order, OperandOrder::Increasing);
  EXPECT_NE(cfg.ops[0].label, cfg.ops[1].label);
}

// Found by fuzzing: alternatives multiply, and a line of them took seconds
// (and memory without bound) before the limit on choices was checked.
TEST(GenConfig, AlternativesBeyondTheLimitAreRefusedBeforeExpanding) {
  std::string line = "op const_pool";
  for (int i = 0; i < 12; ++i)
    line += " k=1,1|1,2|1,3|2,1|2,2|2,3|3,1|3,2";
  EXPECT_EQ(error_of("input x 2x2\n" + line + "\n"),
            "t.gen:2:1: at most 250 operator choices");
}

TEST(GenConfig, ErrorsNameLineAndColumn) {
  EXPECT_EQ(error_of("input x 2x2\nop frobnicate\n"),
            "t.gen:2:4: unknown operator 'frobnicate'");
  EXPECT_EQ(error_of("input x 2xq\nop relu\n"),
            "t.gen:1:9: expected a shape like 2x4x5x5 or 'scalar', got '2xq'");
  EXPECT_EQ(error_of("input x 2x2\nop relu  colour=red\n"),
            "t.gen:2:10: relu has no attribute 'colour'");
  EXPECT_EQ(error_of("input x 2x2\ninput x 2x2\nop relu\n"),
            "t.gen:2:7: variable group 'x' declared twice");
  EXPECT_EQ(error_of("  banana\n"),
            "t.gen:1:3: expected 'input', 'weight' or 'op', got 'banana'");
  EXPECT_NE(
      error_of("input x 2x2\nop conv2d pad=sideways\n").find("t.gen:2:11:"),
      std::string::npos);
  EXPECT_EQ(error_of("input x 2x2\n"), "t.gen: no operators declared");
}

} // namespace
} // namespace quarry
