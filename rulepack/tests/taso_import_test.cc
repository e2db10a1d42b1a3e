//===- taso_import_test.cc - Importing TASO rule collections --------------===//
#include "quarry/rulepack/taso_import.h"

#include "quarry/core/text.h"
#include "quarry/rulepack/rule_pack_io.h"
#include "taso_rules.pb.h"
#include "test_files.h"

#include <gtest/gtest.h>

namespace quarry {
namespace {

using testing::error_of;
using testing::read_bytes;
using testing::ScratchDir;
using testing::write_bytes;

// TASO operator types and parameter keys used below.
enum : int {
  kConv2D = 3,
  kPoolAvg = 7,
  kRelu = 8,
  kConcat = 12,
  kSplit = 13,
  kTranspose = 15,
  kEwAdd = 16,
  kMatMul = 18,
  kConstPool = 25,
};
enum : int {
  kNumInputs = 1,
  kNumOutputs = 2,
  kKernelH = 4,
  kKernelW = 5,
  kStrideH = 6,
  kStrideW = 7,
  kPad = 8,
  kActi = 9,
  kNumDim = 10,
  kAxis = 11,
  kPerm = 12,
  kOutShuffle = 13,
};

using Refs = std::vector<std::pair<int, int>>;   // (opId, tsId)
using Params = std::vector<std::pair<int, int>>; // (key, value)

/// Appends operators and output mappings to a TASO rule.
class TasoRule {
public:
  explicit TasoRule(GraphSubst::RuleCollection &c) : r_(c.add_rule()) {}
  TasoRule &src(int type, const Refs &in, const Params &p = {}) {
    fill(r_->add_srcop(), type, in, p);
    return *this;
  }
  TasoRule &dst(int type, const Refs &in, const Params &p = {}) {
    fill(r_->add_dstop(), type, in, p);
    return *this;
  }
  TasoRule &map(int src_op, int src_ts, int dst_op, int dst_ts) {
    auto *m = r_->add_mappedoutput();
    m->set_srcopid(src_op);
    m->set_srctsid(src_ts);
    m->set_dstopid(dst_op);
    m->set_dsttsid(dst_ts);
    return *this;
  }

private:
  static void fill(GraphSubst::Operator *op, int type, const Refs &in,
                   const Params &params) {
    op->set_type(type);
    for (auto [id, ts] : in) {
      auto *t = op->add_input();
      t->set_opid(id);
      t->set_tsid(ts);
    }
    for (auto [key, value] : params) {
      auto *p = op->add_para();
      p->set_key(key);
      p->set_value(value);
    }
  }
  GraphSubst::Rule *r_;
};

std::string bytes_of(const GraphSubst::RuleCollection &c) {
  return c.SerializeAsString();
}

void expect_rule(const Rule &rule, const char *source, const char *target) {
  Graph s = parse_graph(source), t = parse_graph(target);
  EXPECT_TRUE(structurally_equal(rule.source, s)) << rule.name << " source:\n"
                                                  << print_graph(rule.source);
  EXPECT_TRUE(structurally_equal(rule.target, t)) << rule.name << " target:\n"
                                                  << print_graph(rule.target);
}

/// A collection exercising the parameter mappings.
GraphSubst::RuleCollection sample_collection() {
  GraphSubst::RuleCollection c;
  // 0: matmul distributes over ewadd.
  TasoRule(c)
      .src(kMatMul, {{-1, 0}, {-2, 0}}, {{kActi, 0}})
      .src(kMatMul, {{-1, 0}, {-3, 0}}, {{kActi, 0}})
      .src(kEwAdd, {{0, 0}, {1, 0}})
      .dst(kEwAdd, {{-2, 0}, {-3, 0}})
      .dst(kMatMul, {{-1, 0}, {0, 0}}, {{kActi, 0}})
      .map(2, 0, 1, 0);
  // 1: two relus become one on a concat, split again (two outputs).
  const Params concat = {{kNumInputs, 2}, {kAxis, 1}, {kNumDim, 4}};
  TasoRule(c)
      .src(kRelu, {{-1, 0}})
      .src(kRelu, {{-2, 0}})
      .dst(kConcat, {{-1, 0}, {-2, 0}}, concat)
      .dst(kRelu, {{0, 0}})
      .dst(kSplit, {{1, 0}}, {{kNumOutputs, 2}, {kAxis, 1}})
      .map(0, 0, 2, 0)
      .map(1, 0, 2, 1);
  // 2: transposes by perm 1,2,0 (code 5*3 = 15) and 2,0,1 (code 19) cancel.
  TasoRule(c)
      .src(kTranspose, {{-1, 0}}, {{kNumDim, 3}, {kPerm, 15}, {kOutShuffle, 1}})
      .src(kTranspose, {{0, 0}}, {{kNumDim, 3}, {kPerm, 19}, {kOutShuffle, 0}})
      .map(1, 0, -1, 0);
  // 3: conv2d with TASO's relu (acti 2) is relu after conv2d.
  const Params conv = {
      {kKernelH, 3}, {kKernelW, 3}, {kStrideH, 2}, {kStrideW, 1}, {kPad, 1}};
  Params conv_relu = conv;
  conv_relu.push_back({kActi, 2});
  Params conv_none = conv;
  conv_none.push_back({kActi, 0});
  TasoRule(c)
      .src(kConv2D, {{-1, 0}, {-2, 0}}, conv_relu)
      .dst(kConv2D, {{-1, 0}, {-2, 0}}, conv_none)
      .dst(kRelu, {{0, 0}})
      .map(0, 0, 1, 0);
  // 4: average pooling is a convolution with const_pool; acti 1 is sigmoid.
  const Params pool = {
      {kKernelH, 3}, {kKernelW, 2}, {kStrideH, 1}, {kStrideW, 1}, {kPad, 0}};
  TasoRule(c)
      .src(kPoolAvg, {{-1, 0}}, pool)
      .dst(kConstPool, {}, {{kKernelH, 3}, {kKernelW, 2}})
      .dst(kConv2D, {{-1, 0}, {0, 0}},
           {{kStrideH, 1}, {kStrideW, 1}, {kPad, 0}, {kActi, 1}})
      .map(0, 0, 1, 0);
  return c;
}

TEST(TasoImport, MapsOperatorsAndParameters) {
  const RulePack pack =
      import_taso_rules_from_bytes(bytes_of(sample_collection()), "dir/t.pb");
  ASSERT_EQ(pack.rules.size(), 5u);
  expect_rule(pack.rules[0],
              "input x1\ninput x2\ninput x3\n"
              "y = ewadd(matmul(x1, x2), matmul(x1, x3))\noutput y\n",
              "input x1\ninput x2\ninput x3\n"
              "y = matmul(x1, ewadd(x2, x3))\noutput y\n");
  expect_rule(pack.rules[1],
              "input x1\ninput x2\na = relu(x1)\nb = relu(x2)\noutput a, b\n",
              "input x1\ninput x2\n"
              "a, b = split[axis=1](relu(concat[axis=1](x1, x2)))\n"
              "output a, b\n");
  expect_rule(pack.rules[2],
              "input x1\n"
              "y = transpose[perm=2,0,1](transpose[perm=1,2,0 shuffle=1](x1))"
              "\noutput y\n",
              "input x1\noutput x1\n");
  expect_rule(pack.rules[3],
              "input x1\ninput x2\n"
              "y = conv2d[s=2,1 pad=valid act=relu](x1, x2)\noutput y\n",
              "input x1\ninput x2\n"
              "y = relu(conv2d[s=2,1 pad=valid act=none](x1, x2))\noutput y\n");
  expect_rule(pack.rules[4],
              "input x1\ny = pool2d_avg[k=3,2 s=1,1 pad=same](x1)\noutput y\n",
              "input x1\n"
              "y = conv2d[act=sigmoid](x1, const_pool[k=3,2]())\noutput y\n");

  const Rule &r = pack.rules[3];
  EXPECT_EQ(r.name, "taso_3");
  Provenance expected;
  expected.origin = "taso-import";
  expected.source_file = "t.pb";
  expected.source_index = 3;
  EXPECT_EQ(r.provenance, expected);
  EXPECT_EQ(pack.header.operators,
            (std::vector<std::string>{"matmul", "conv2d", "pool2d_avg", "relu",
                                      "ewadd", "concat", "split", "transpose",
                                      "const_pool"}));
  // read_rule_pack() recognizes the format by itself.
  ScratchDir dir;
  write_bytes(dir.file("t.pb"), bytes_of(sample_collection()));
  const RulePack again = read_rule_pack(dir.file("t.pb"));
  ASSERT_EQ(again.rules.size(), 5u);
  EXPECT_TRUE(structurally_equal(again.rules[1].target, pack.rules[1].target));
}

/// The error importing a one-rule collection built by `build`.
template <class F> std::string import_error(F &&build) {
  GraphSubst::RuleCollection c;
  TasoRule(c).src(kRelu, {{-1, 0}}).dst(kRelu, {{-1, 0}}).map(0, 0, 0, 0);
  TasoRule rule(c);
  build(rule);
  return error_of([&] { import_taso_rules_from_bytes(bytes_of(c), "t.pb"); });
}

TEST(TasoImport, RejectsWhatItCannotMap) {
  EXPECT_EQ(import_error([](TasoRule &r) {
              r.src(kRelu, {{-1, 0}}).src(42, {{0, 0}}).dst(kRelu, {{-1, 0}});
              r.map(1, 0, 0, 0);
            }),
            "t.pb: rule 1: source op 1: unknown operator type 42");
  EXPECT_EQ(import_error([](TasoRule &r) {
              r.src(kRelu, {{-1, 0}}).dst(kRelu, {{-1, 0}}, {{99, 1}});
              r.map(0, 0, 0, 0);
            }),
            "t.pb: rule 1: target op 0: unknown parameter key 99");
  EXPECT_EQ(import_error([](TasoRule &r) {
              r.src(kRelu, {{-1, 0}}, {{kAxis, 1}}).dst(kRelu, {{-1, 0}});
              r.map(0, 0, 0, 0);
            }),
            "t.pb: rule 1: source op 0: parameter axis [11] does not apply "
            "to relu");
  EXPECT_EQ(import_error([](TasoRule &r) {
              r.src(kMatMul, {{-1, 0}, {-2, 0}}, {{kActi, 7}});
              r.dst(kRelu, {{-1, 0}}).map(0, 0, 0, 0);
            }),
            "t.pb: rule 1: source op 0: acti [9] value 7 is not an "
            "activation (0-3)");
  EXPECT_EQ(import_error([](TasoRule &r) {
              r.src(kRelu, {{1, 0}}).src(kRelu, {{-1, 0}});
              r.dst(kRelu, {{-1, 0}}).map(0, 0, 0, 0);
            }),
            "t.pb: rule 1: source op 0: operand 0 refers to op 1, which is "
            "not an earlier op");
  EXPECT_EQ(import_error([](TasoRule &r) {
              r.src(kRelu, {{-1, 0}}).src(kRelu, {{0, 1}});
              r.dst(kRelu, {{-1, 0}}).map(1, 0, 0, 0);
            }),
            "t.pb: rule 1: source op 1: operand 0 refers to output 1 of op "
            "0, which has 1");
  EXPECT_EQ(import_error([](TasoRule &r) {
              r.src(kRelu, {{-1, 0}}).dst(kRelu, {{-1, 0}}).map(0, 0, 3, 0);
            }),
            "t.pb: rule 1: target output 0: refers to op 3, which does not "
            "exist");
  EXPECT_EQ(import_error([](TasoRule &r) {
              r.src(kRelu, {{-1, 0}}).dst(kRelu, {{-2, 0}}).map(0, 0, 0, 0);
            }),
            "t.pb: rule 1: target variable 'x2' is not bound by the source");
  EXPECT_EQ(import_error([](TasoRule &r) {
              r.src(kEwAdd, {{-1, 0}}).dst(kRelu, {{-1, 0}}).map(0, 0, 0, 0);
            }),
            "t.pb: rule 1: source op 0: ewadd: expects 2 operands, got 1");
  EXPECT_EQ(import_error([](TasoRule &r) {
              r.src(kTranspose, {{-1, 0}}, {{kNumDim, 3}, {kPerm, 13}});
              r.dst(kRelu, {{-1, 0}}).map(0, 0, 0, 0);
            }),
            "t.pb: rule 1: source op 0: perm [12] 13 is not a permutation of "
            "3 axes");
  EXPECT_EQ(import_error([](TasoRule &r) {
              r.src(kConcat, {{-1, 0}, {-2, 0}}, {{kNumInputs, 3}});
              r.dst(kRelu, {{-1, 0}}).map(0, 0, 0, 0);
            }),
            "t.pb: rule 1: source op 0: num_inputs [1] is 3 but the operator "
            "has 2 operands");
}

TEST(TasoImport, RejectsCorruptFiles) {
  ScratchDir dir;
  const std::string bytes = bytes_of(sample_collection());
  const std::string cut = dir.file("cut.pb");
  write_bytes(cut, bytes.substr(0, bytes.size() - 3));
  std::string msg = error_of([&] { read_rule_pack(cut); });
  EXPECT_EQ(msg.rfind(cut + ": ", 0), 0u) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  msg = error_of([&] { import_taso_rules(cut); });
  EXPECT_EQ(msg, cut + ": neither a quarry rule pack nor a TASO rule "
                       "collection");
  // Well-formed protobuf of another schema is not taken for TASO's.
  GraphSubst::Tensor other;
  other.set_opid(1);
  other.set_tsid(2);
  EXPECT_EQ(
      error_of([&] { parse_rule_pack(other.SerializeAsString(), "other.pb"); }),
      "other.pb: neither a quarry rule pack nor a TASO rule collection");
}

const char *const kTasoFile = QUARRY_TASO_RULES_FILE;

TEST(TasoImport, ImportsTasosPublishedRules) {
  if (!std::filesystem::exists(kTasoFile))
    GTEST_SKIP() << "TASO's rule collection is not at " << kTasoFile;
  const RulePack pack = import_taso_rules(kTasoFile);
  ASSERT_EQ(pack.rules.size(), 133u);
  // Rule 0 is matmul associativity.
  expect_rule(pack.rules[0],
              "input x1\ninput x4\ninput x5\n"
              "y = matmul(matmul(x1, x4), x5)\noutput y\n",
              "input x1\ninput x4\ninput x5\n"
              "y = matmul(x1, matmul(x4, x5))\noutput y\n");
  EXPECT_EQ(pack.rules[132].provenance.source_index, 132);
  EXPECT_EQ(pack.rules[132].provenance.source_file, "taso_graph_subst.pb");

  ScratchDir dir;
  const std::string out = dir.file("taso.pb");
  write_rule_pack(pack, out);
  const RulePack again = read_rule_pack(out);
  EXPECT_EQ(again.header, pack.header);
  ASSERT_EQ(again.rules.size(), pack.rules.size());
  for (size_t i = 0; i < pack.rules.size(); ++i) {
    EXPECT_EQ(again.rules[i].name, pack.rules[i].name);
    EXPECT_TRUE(structurally_equal(again.rules[i].source, pack.rules[i].source))
        << i;
    EXPECT_TRUE(structurally_equal(again.rules[i].target, pack.rules[i].target))
        << i;
    EXPECT_EQ(again.rules[i].provenance, pack.rules[i].provenance) << i;
  }
  // Converting again, from the TASO file or from our own, gives equal bytes.
  EXPECT_EQ(serialize_rule_pack(import_taso_rules(kTasoFile)), read_bytes(out));
  EXPECT_EQ(serialize_rule_pack(again), read_bytes(out));
}

} // namespace
} // namespace quarry
