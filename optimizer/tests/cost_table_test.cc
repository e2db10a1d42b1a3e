//===- cost_table_test.cc - Pricing graphs from another machine's costs ---===//
#include "quarry/core/error.h"
#include "quarry/core/text.h"
#include "quarry/optimizer/cost_model.h"
#include "quarry/optimizer/cost_table.h"
#include "quarry/runtime/backends.h"
#include "quarry/runtime/cost_cache.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace quarry::opt {
namespace {

namespace fs = std::filesystem;

runtime::OpConfig config_of(const std::string &text) {
  const Graph g = parse_graph(text);
  for (int32_t id = g.num_nodes() - 1; id >= 0; --id)
    if (!g.node(id).is_variable())
      return runtime::op_config(g, id);
  throw Error("no operator");
}

const std::string kConv = "input x: [1,16,28,28]\nweight w: [32,16,3,3]\n"
                          "y = conv2d[s=1,1 pad=same act=relu](x, w)\n"
                          "output y\n";
const std::string kBigConv = "input x: [1,64,56,56]\nweight w: [64,64,3,3]\n"
                             "y = conv2d[s=1,1 pad=same act=none](x, w)\n"
                             "output y\n";
const std::string kMatMul = "input x: [64,256]\nweight w: [256,512]\n"
                            "y = matmul(x, w)\noutput y\n";
const std::string kAdd = "input a: [1,32,28,28]\ninput b: [1,32,28,28]\n"
                         "y = ewadd(a, b)\noutput y\n";
const std::string kSplit =
    "input x: [1,32,8,8]\na, b = split[axis=1 sizes=8,24](x)\noutput a\n";

TEST(ParseOpConfig, ReadsBackWhatKeyWrites) {
  for (const std::string &text : {kConv, kMatMul, kAdd, kSplit}) {
    const runtime::OpConfig c = config_of(text);
    runtime::OpConfig back;
    ASSERT_TRUE(parse_op_config(c.key(), back)) << c.key();
    EXPECT_EQ(back.key(), c.key());
    ASSERT_TRUE(parse_op_config(c.key() + " cold-weights", back));
    EXPECT_EQ(back.key(), c.key());
  }
  runtime::OpConfig c;
  EXPECT_FALSE(parse_op_config("conv2d(x[1,2]", c));
  EXPECT_FALSE(parse_op_config("no_such_op(x[1,2])", c));
  EXPECT_FALSE(parse_op_config("relu(q[1,2])", c));
}

class CostTableTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("quarry_cost_table_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = (dir_ / "costs.tsv").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  void record(const std::string &device, const std::string &text, double ms,
              const std::string &backend = "cuda") {
    runtime::CostCache cache(path_);
    cache.insert(runtime::CostCache::key(backend, device, config_of(text)), ms);
  }

  fs::path dir_;
  std::string path_;
};

TEST_F(CostTableTest, RecordsAreFoundAndTheRestPricedByTheRoofline) {
  record("GPU A", kConv, 0.02);
  record("GPU A", kMatMul, 0.015);
  record("GPU A", kAdd, 0.004);
  record("CPU B", kAdd, 0.5, "cpu");
  CostTable t(path_, "cuda");
  EXPECT_EQ(t.device(), "GPU A");
  EXPECT_EQ(t.records(), 3u);
  EXPECT_DOUBLE_EQ(t.cost(config_of(kConv)), 0.02);
  EXPECT_DOUBLE_EQ(t.cost(config_of(kAdd)), 0.004);
  EXPECT_EQ(t.found(), 2);
  EXPECT_EQ(t.priced(), 0);

  const CostTable::Roofline &m = t.roofline();
  EXPECT_EQ(m.fitted_records, 3);
  EXPECT_DOUBLE_EQ(m.launch_ms, 0.004);
  EXPECT_GT(m.flops_per_ms, 0);
  EXPECT_GT(m.bytes_per_ms, 0);
  // A configuration of a recorded operator the file lacks: priced from
  // the roofline times the convolutions' shortfall, and more work costs
  // more.
  const double big = t.cost(config_of(kBigConv));
  EXPECT_EQ(t.priced(), 1);
  EXPECT_GT(big, 0.02);
  EXPECT_DOUBLE_EQ(big, CostTable::price(m, config_of(kBigConv)));
  // Asked again: the same price, counted once.
  EXPECT_DOUBLE_EQ(t.cost(config_of(kBigConv)), big);
  EXPECT_EQ(t.priced(), 1);
  // An operator the file has no record of: the shortfall of all records.
  EXPECT_GT(t.cost(config_of(kSplit)), 0);
  EXPECT_EQ(t.priced(), 2);
}

TEST_F(CostTableTest, ErrorsNameTheFile) {
  auto message = [](auto &&f) {
    try {
      f();
    } catch (const Error &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message([&] { CostTable(path_ + ".none", "cuda"); }),
            path_ + ".none: no such cost file");
  record("CPU B", kAdd, 0.5, "cpu");
  EXPECT_EQ(message([&] { CostTable(path_, "cuda"); }),
            path_ + ": no cost of backend cuda");
  record("GPU A", kAdd, 0.004);
  record("GPU C", kAdd, 0.003);
  EXPECT_EQ(message([&] { CostTable(path_, "cuda"); }),
            path_ + ": costs of several cuda devices (GPU A; GPU C): name one");
  CostTable c(path_, "cuda", "GPU C");
  EXPECT_DOUBLE_EQ(c.cost(config_of(kAdd)), 0.003);
}

TEST_F(CostTableTest, ASearchPricesGraphsForADeviceThisMachineLacks) {
  record("GPU A", kConv, 0.02);
  record("GPU A", kAdd, 0.004);
  CostTable t(path_, "cuda");
  const std::string backend = runtime::cuda_backend_built() ? "cuda" : "cpu";
  auto pricing = runtime::make_pricing_backend(backend, t.device());
  EXPECT_EQ(pricing->device_name(), "GPU A");
  const Graph g = parse_graph(kConv);
  EXPECT_THROW(pricing->prepare(g, {}), Error);
  CostModel cost([&](const runtime::OpConfig &c) { return t.cost(c); },
                 *pricing);
  EXPECT_DOUBLE_EQ(cost.graph_cost(g), 0.02);
}

} // namespace
} // namespace quarry::opt
