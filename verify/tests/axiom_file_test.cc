//===- axiom_file_test.cc - Parsing and checking axiom files --------------===//
#include "quarry/verify/axiom_file.h"

#include "quarry/testing/scratch_dir.h"
#include "verify_test_util.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace quarry::verify {
namespace {

using testing::error_of;
using testing::taso_axioms;

constexpr const char *kDecls = "op conv2d[s, pad, act](x, w)\n"
                               "op concat[axis](x, y)\n"
                               "op split[axis](x) -> 2\n"
                               "op ewadd(x, y)\n";

std::string parse_error(const std::string &body) {
  return error_of(
      [&] { parse_axioms(std::string(kDecls) + body, "t.axioms"); });
}

TEST(AxiomFile, ParsesTasosAxioms) {
  const AxiomFile &f = taso_axioms();
  int axioms = 0, lemmas = 0;
  for (const Axiom &a : f.axioms)
    (a.is_lemma ? lemmas : axioms) += 1;
  // TASO's 44, the grouped convolution, and three TASO derives through a
  // constant of the input's channels (avgpool_concat_batch, smul_avgpool,
  // avgpool_linear).
  EXPECT_EQ(axioms, 48);
  EXPECT_EQ(lemmas, 5);
  const Axiom *grouped = f.find_axiom("conv_grouped_merge");
  ASSERT_NE(grouped, nullptr);
  ASSERT_EQ(grouped->preconditions.size(), 2u);
  EXPECT_EQ(grouped->preconditions[0].var, "x1");
  EXPECT_EQ(grouped->preconditions[1].other_dim, 0);
  EXPECT_EQ(print_term(f, f.find_axiom("split1_concat")->lhs),
            "split.1(ax, concat(ax, x, y))");
  for (const Axiom &a : f.axioms)
    EXPECT_TRUE(a.domain) << a.name << " has no small-shape domain";
}

TEST(AxiomFile, ResolvesVariablesAndParameters) {
  const AxiomFile f = parse_axioms(
      std::string(kDecls) +
          "axiom w: forall s a x y z. concat(1, conv2d(s, same, a, x, y), "
          "conv2d(s, same, a, x, z)) = conv2d(s, same, a, x, concat(0, y, z))\n"
          "  shapes x: [n, c, 3, 3], y: [c, c, 1, 1], z: [c, c, 1, 1]\n"
          "  values s in {[1,1], [2,2]}, a in {none, relu}, n c in 1..2\n"
          "  if a = relu or n * 2 >= (c + 1) % 3\n",
      "t.axioms");
  const Axiom &a = f.axioms.at(0);
  EXPECT_EQ(a.sorts.at("s"), VarSort::Int);
  EXPECT_EQ(a.sorts.at("x"), VarSort::Tensor);
  EXPECT_EQ(a.lhs.args[1].args[1].kind, Term::Kind::Name); // "same"
  EXPECT_EQ(a.domain->values.at("a")[1], DomainValue{1});  // relu
  EXPECT_EQ(a.domain->values.at("s")[1], (DomainValue{2, 2}));
  EXPECT_TRUE(a.domain->condition);
}

TEST(AxiomFile, ParsesDimsStatements) {
  const AxiomFile f = parse_axioms(
      std::string(kDecls) +
          "dims conv: forall s p a x w. dim(conv2d(s, p, a, x, w), 0) = "
          "dim(x, 0)\n"
          "  and dim(conv2d(s, p, a, x, w), 1) = dim(w, 0) when dim(x, 1) = "
          "dim(w, 1)\n"
          "dims cat: forall x y i. dim(concat(1, x, y), 1) = dim(x, 1) + "
          "dim(y, 1) + 0\n"
          "  when dim(x, 0) = dim(y, 0) and dim(x, 2) = dim(y, 2)\n"
          "  and dim(ewadd(x, y), i) = dim(x, i)\n",
      "t.axioms");
  ASSERT_EQ(f.dim_facts.size(), 2u);
  const DimFact &conv = f.dim_facts[0];
  ASSERT_EQ(conv.equations.size(), 2u);
  EXPECT_EQ(conv.sorts.at("s"), VarSort::Int);
  EXPECT_EQ(conv.equations[1].result.index, 1);
  ASSERT_EQ(conv.equations[1].when.size(), 1u);
  EXPECT_EQ(conv.equations[1].when[0].second.tensor.name, "w");
  const DimFact &cat = f.dim_facts[1];
  ASSERT_EQ(cat.equations.size(), 2u);
  EXPECT_EQ(cat.equations[0].sum.size(), 2u);
  EXPECT_EQ(cat.equations[0].when.size(), 2u);
  EXPECT_EQ(cat.equations[1].result.index_var, "i");
  EXPECT_EQ(cat.sorts.at("i"), VarSort::Index);
  // TASO's file states them for the operators its preconditions meet.
  EXPECT_FALSE(taso_axioms().dim_facts.empty());
}

TEST(AxiomFile, RejectsBadDimsStatements) {
  EXPECT_EQ(parse_error("dims d: forall x y. dim(x, 0) = dim(y, 0)\n"),
            "t.axioms:5:25: expected an operator application");
  EXPECT_EQ(
      parse_error("dims d: forall x y. dim(ewadd(x, x), 0) = dim(y, 0)\n"),
      "t.axioms:5:47: 'y' does not occur on the left; a dims equation gives "
      "a result's dimension from its operands'");
  EXPECT_EQ(parse_error("dims d: forall x i. dim(ewadd(x, x), 0) = dim(x, i)"
                        "\n"),
            "t.axioms:5:47: 'i' does not occur on the left; a dims equation "
            "gives a result's dimension from its operands'");
  EXPECT_EQ(parse_error("dims d: forall x. dim(ewadd(x, x), x) = dim(x, 0)\n"),
            "t.axioms:5:36: 'x' is used both as a tensor and as a dimension "
            "index");
  EXPECT_EQ(parse_error("dims d: forall x. dim(ewadd(x, x), 0) = 1\n"
                        "dims d: forall x. dim(ewadd(x, x), 1) = 1\n"),
            "t.axioms:6:6: dims 'd' is defined twice");
  EXPECT_EQ(parse_error("dims d: forall x. dim(ewadd(x, x), 0) = dim(x, 0) "
                        "foo\n"),
            "t.axioms:5:51: expected 'and' or a new statement, found 'foo'");
}

TEST(AxiomFile, RejectsBadAxiomsWithTheirPosition) {
  EXPECT_EQ(parse_error("axiom a: forall x. relu(x) = x\n"),
            "t.axioms:5:20: undeclared operator 'relu'");
  EXPECT_EQ(parse_error("axiom a: forall x y. ewadd(x) = y\n"),
            "t.axioms:5:22: ewadd takes 0 parameters and 2 tensors, got 1 "
            "arguments");
  EXPECT_EQ(parse_error("axiom a: forall x. ewadd(x, y) = x\n"),
            "t.axioms:5:29: 'y' is not bound by forall");
  EXPECT_EQ(parse_error("axiom a: forall x y. concat(x, x, y) = y\n"),
            "t.axioms:5:32: 'x' is used both as a tensor and as an integer "
            "parameter");
  EXPECT_EQ(parse_error("axiom a: forall x. split.2(0, x) = x\n"),
            "t.axioms:5:20: split has no result 2");
  EXPECT_EQ(
      parse_error("axiom a: forall x w. conv2d(1, same, none, x, w) = x\n"),
      "t.axioms:5:29: expected a list for parameter 's' of conv2d");
  EXPECT_EQ(
      parse_error("axiom a: forall x. ewadd(x, x) = x\n  shapes x: [n]\n"),
      "t.axioms:6:14: 'n' has no values (add it under 'values')");
  EXPECT_EQ(parse_error("axiom a: forall x. ewadd(x, x) x\n"),
            "t.axioms:5:32: expected '=', found 'x'");
  EXPECT_EQ(parse_error("axiom a: forall x. ewadd(x, x) = x $\n"),
            "t.axioms:5:36: unexpected character '$'");
}

TEST(AxiomFile, RejectsBadDeclarations) {
  auto err = [](const std::string &text) {
    return error_of([&] { parse_axioms(text, "d.axioms"); });
  };
  EXPECT_EQ(err("op conv3d(x)\n"), "d.axioms:1:4: 'conv3d' is not an operator");
  EXPECT_EQ(err("op relu(x, y)\n"),
            "d.axioms:1:4: relu takes 1 operands, declared with 2");
  EXPECT_EQ(err("op conv2d[stride](x, w)\n"),
            "d.axioms:1:11: conv2d has no attribute 'stride'");
  EXPECT_EQ(err("op split[axis](x)\n"),
            "d.axioms:1:4: split has 2 results, declared with 1");
  EXPECT_EQ(err("op relu(x)\nop relu(x)\n"),
            "d.axioms:2:4: operator 'relu' is declared twice");
}

TEST(AxiomFile, IncludesOtherFilesOnce) {
  const quarry::testing::ScratchDir scratch;
  const auto &dir = scratch.path();
  std::ofstream(dir / "ops.axioms") << "op ewadd(x, y)\n";
  std::ofstream(dir / "main.axioms")
      << "include \"ops.axioms\"\ninclude \"ops.axioms\"\n"
      << "axiom c: forall x y. ewadd(x, y) = ewadd(y, x)\n";
  const AxiomFile f = read_axiom_file(dir / "main.axioms");
  EXPECT_EQ(f.ops.size(), 1u);
  EXPECT_EQ(f.files.size(), 2u);
  std::ofstream(dir / "bad.axioms") << "include \"absent.axioms\"\n";
  EXPECT_NE(error_of([&] {
              read_axiom_file(dir / "bad.axioms");
            }).find("bad.axioms:1:9: cannot include: "),
            std::string::npos);
}

TEST(AxiomFile, DropsAxiomsByName) {
  const AxiomFile f = without_axioms(taso_axioms(), {"ewadd_comm"});
  EXPECT_EQ(f.axioms.size(), taso_axioms().axioms.size() - 1);
  EXPECT_EQ(f.find_axiom("ewadd_comm"), nullptr);
  EXPECT_EQ(error_of([&] { without_axioms(f, {"nope"}); }),
            "no axiom named 'nope'");
}

} // namespace
} // namespace quarry::verify
