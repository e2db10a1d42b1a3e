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
  EXPECT_EQ(axioms, 45); // TASO's 44 and the grouped convolution
  EXPECT_EQ(lemmas, 6);
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
