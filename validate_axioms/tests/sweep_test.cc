//===- sweep_test.cc - Case spaces, instances, the sweep, shards ----------===//
#include "quarry/validate_axioms/case_space.h"
#include "quarry/validate_axioms/instance_check.h"
#include "quarry/validate_axioms/sweep.h"
#include "quarry/validate_axioms/validation.h"

#include "quarry/core/file_io.h"
#include "quarry/testing/error_of.h"
#include "quarry/testing/scratch_dir.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace quarry::validate_axioms {
namespace {

const std::string kAxioms = QUARRY_AXIOMS_DIR "/taso.axioms";
const std::string kFixtures = QUARRY_FIXTURES_DIR "/fixtures";

const verify::Axiom &axiom(const verify::AxiomFile &f, const char *name) {
  const verify::Axiom *a = f.find_axiom(name);
  EXPECT_NE(a, nullptr) << name;
  return *a;
}

TEST(CaseSpace, DimensionsRangeOverSizesParametersOverTheirValues) {
  const verify::AxiomFile f = verify::read_axiom_file(kAxioms);
  // relu_conv: s (2 values), p (2) are parameters; n h v c co ci kh kw are
  // dimensions: 4 * 5^8 cases with five sizes, and no tie to break.
  const CaseSpace space(axiom(f, "relu_conv"), {1, 2, 3, 4, 5});
  EXPECT_EQ(space.size(), 4u * 390625u);
  EXPECT_EQ(space.untied_cases(), 0u);
  EXPECT_EQ(space.dimension_vars().size(), 8u);
  const Case last = space.at(space.size() - 1);
  EXPECT_EQ(last.values.at("kw"), verify::DomainValue{5});
  EXPECT_EQ(last.values.at("s"), (verify::DomainValue{2, 2}));
  EXPECT_TRUE(last.untied.empty());
  // const_pool_conv ties x's channels to the constant's (c) and writes a 1:
  // each of the two tied dimensions of x and the constant, and the 1, takes
  // each size at every case whose dimensions are 1 or 2.
  const CaseSpace pool(axiom(f, "const_pool_conv"), {1, 2, 3});
  const uint64_t params = 2 * 2 * 3;                         // s, p, k
  EXPECT_EQ(pool.size() - pool.untied_cases(), params * 81); // n c h v
  EXPECT_EQ(pool.untied_cases(), params * 16 * 3 * 3);
  const Case untied = pool.at(pool.size() - 1);
  ASSERT_EQ(untied.untied.size(), 1u);
  EXPECT_EQ(untied.untied.begin()->second, 3);
  // enlarge_conv's k is a parameter even though its shapes mention k.0.
  const CaseSpace enlarge(axiom(f, "enlarge_conv"), {1, 2});
  for (const std::string &d : enlarge.dimension_vars())
    EXPECT_NE(d, "k");
}

TEST(InstanceCheck, TrueAxiomsPassAndWrongOnesShowAnElement) {
  const verify::AxiomFile f = verify::parse_axioms(
      "op relu(x)\nop ewadd(x, y)\nop pool2d_max[k, s, pad](x)\n"
      "axiom relu_add_wrong: forall x y. relu(ewadd(x, y)) = "
      "ewadd(relu(x), relu(y))\n"
      "  shapes x: [a, b], y: [a, b]\n  values a b in 1..2\n"
      "axiom relu_maxpool: forall x. relu(pool2d_max([2,2], [1,1], valid, "
      "x)) = pool2d_max([2,2], [1,1], valid, relu(x))\n"
      "  shapes x: [1, 1, h, v]\n  values h v in 1..3\n"
      "axiom maxpool_add_wrong: forall x y. pool2d_max([2,2], [1,1], valid, "
      "ewadd(x, y)) = ewadd(pool2d_max([2,2], [1,1], valid, x), "
      "pool2d_max([2,2], [1,1], valid, y))\n"
      "  shapes x: [1, 1, 2, 2], y: [1, 1, 2, 2]\n",
      "inline.axioms");
  const CaseResult wrong = check_case(f, axiom(f, "relu_add_wrong"),
                                      {{{"a", {1}}, {"b", {2}}}, {}}, 5);
  EXPECT_EQ(wrong.outcome, CaseOutcome::Failed);
  EXPECT_NE(wrong.detail.find("x:[1,2] y:[1,2] with a=1 b=2: element [0,0] "
                              "differs: left relu(x[0,0] + y[0,0])"),
            std::string::npos)
      << wrong.detail;
  // Normal forms differ (relu(max(..)) vs max(relu(..), ..)) but Z3 shows
  // the two sides equal: relu is monotone.
  EXPECT_EQ(
      check_case(f, axiom(f, "relu_maxpool"), {{{"h", {2}}, {"v", {3}}}, {}}, 5)
          .outcome,
      CaseOutcome::Passed);
  // A window smaller than the kernel is rejected by pool2d_max: skipped.
  EXPECT_EQ(
      check_case(f, axiom(f, "relu_maxpool"), {{{"h", {1}}, {"v", {3}}}, {}}, 5)
          .outcome,
      CaseOutcome::Skipped);
  const CaseResult max_wrong =
      check_case(f, axiom(f, "maxpool_add_wrong"), Case{}, 5);
  EXPECT_EQ(max_wrong.outcome, CaseOutcome::Failed);
  EXPECT_NE(max_wrong.detail.find("max("), std::string::npos);
}

TEST(Sweep, TasoAxiomsHoldOnSmallSizes) {
  const verify::AxiomFile f = verify::read_axiom_file(kAxioms);
  SweepOptions o;
  o.sizes = {1, 2};
  o.threads = 2;
  const SweepResult r = sweep(f, o);
  EXPECT_GT(r.total.checked, 5000u);
  EXPECT_EQ(r.total.failed, 0u)
      << (r.failures.empty() ? "" : r.failures[0].detail);
  EXPECT_EQ(r.axioms.size(), f.axioms.size());
}

TEST(Sweep, CatchesTasosWrongGroupedConvolutionWithSizesOneAndThree) {
  const verify::AxiomFile f =
      verify::read_axiom_file(kFixtures + "/grouped_conv_wrong.axioms");
  SweepOptions o;
  o.sizes = {1, 3};
  const SweepResult r = sweep(f, o);
  EXPECT_GT(r.total.failed, 0u);
  ASSERT_FALSE(r.failures.empty());
  const std::string &d = r.failures[0].detail;
  EXPECT_EQ(r.failures[0].axiom, "grouped_conv_wrong");
  // Shapes, parameters and a differing element.
  EXPECT_NE(d.find("x:[1,1,1,1] y:[1,1,1,1] z:[1,1,1,1] w:[3,1,1,1] with a=0"),
            std::string::npos)
      << d;
  EXPECT_NE(d.find("element [0,1,0,0] differs"), std::string::npos) << d;
}

TEST(Sweep, CatchesAConditionTheProverCannotSee) {
  const verify::AxiomFile f =
      verify::read_axiom_file(kFixtures + "/const_pool_wrong.axioms");
  SweepOptions o;
  o.sizes = {1, 2};
  const SweepResult r = sweep(f, o);
  ASSERT_EQ(r.axioms.size(), 2u);
  EXPECT_GT(r.axioms[0].counts.failed, 0u);
  EXPECT_EQ(r.axioms[1].counts.failed, 0u);
  ASSERT_FALSE(r.failures.empty());
  EXPECT_EQ(r.failures[0].axiom, "const_pool_untied");
  EXPECT_NE(r.failures[0].detail.find(
                "x:[1,1,1,1] const_pool:[2,1,3,3] with c=1 d=2"),
            std::string::npos)
      << r.failures[0].detail;
  // Untying the tied axiom's channels gives only cases outside its
  // condition: filtered, not failed.
  EXPECT_GT(r.axioms[1].counts.filtered, 0u);
}

/// Per-axiom counts without times (which differ run to run).
std::vector<std::array<uint64_t, 4>> counts(const verify::AxiomFile &f,
                                            const ValidationReport &r) {
  std::vector<ChunkResult> chunks;
  for (const auto &[id, c] : r.chunks)
    chunks.push_back(c);
  std::vector<std::array<uint64_t, 4>> out;
  for (const AxiomSweep &a : summarize(f, chunks).axioms)
    out.push_back({a.counts.checked, a.counts.skipped, a.counts.failed,
                   a.counts.filtered});
  return out;
}

std::vector<std::string> failures(const ValidationReport &r) {
  std::vector<std::string> out;
  for (const auto &[id, c] : r.chunks)
    for (const Failure &f : c.failures)
      out.push_back(f.axiom + "#" + std::to_string(f.case_index) + " " +
                    f.detail);
  return out;
}

TEST(Shards, TheUnionOfThreeShardsEqualsTheUnshardedRun) {
  const quarry::testing::ScratchDir scratch;
  const std::string path = kFixtures + "/grouped_conv_wrong.axioms";
  const verify::AxiomFile f = verify::read_axiom_file(path);
  ValidateOptions o;
  o.axioms_path = path;
  o.checks = {"sweep"};
  o.sweep.sizes = {1, 3};
  o.sweep.chunk_size = 16;
  o.out_dir = scratch.file("whole");
  const ValidationRun whole = run_validation(o);
  o.out_dir = scratch.file("sharded");
  o.sweep.shards = 3;
  std::set<uint64_t> seen;
  for (int i = 0; i < 3; ++i) {
    o.sweep.shard = i;
    const ValidationRun part = run_validation(o);
    for (const auto &[id, c] : part.report.chunks) {
      EXPECT_EQ(id % 3, static_cast<uint64_t>(i));
      EXPECT_TRUE(seen.insert(id).second);
    }
  }
  const ValidationRun merged = merge_shards(o.out_dir);
  EXPECT_EQ(merged.path, o.out_dir + "/merged.json");
  EXPECT_EQ(merged.report.chunks.size(), whole.report.chunks.size());
  EXPECT_EQ(counts(f, merged.report), counts(f, whole.report));
  EXPECT_EQ(failures(merged.report), failures(whole.report));
  EXPECT_FALSE(failures(whole.report).empty());
  // The merged file reads back the same.
  EXPECT_EQ(counts(f, read_report(merged.path)), counts(f, whole.report));

  // A shard made by another checker (an earlier quarry) is refused.
  const std::string one = shard_file(o.out_dir, 1, 3);
  const std::string text = read_file_bytes(one);
  std::string other = text;
  const std::string checker = "\"checker\": \"" + checker_identity() + "\"";
  ASSERT_NE(other.find(checker), std::string::npos);
  other.replace(other.find(checker), checker.size(), "\"checker\": \"r0\"");
  write_file_atomic(one, other);
  EXPECT_EQ(quarry::testing::error_of([&] { merge_shards(o.out_dir); }),
            one + ": made by checker 'r0', not '" + checker_identity() +
                "' (rerun the shard)");

  // A missing shard is refused.
  std::filesystem::remove(one);
  EXPECT_THROW(merge_shards(o.out_dir), Error);
}

TEST(Shards, ARerunReusesFinishedChunks) {
  const quarry::testing::ScratchDir scratch;
  ValidateOptions o;
  o.axioms_path = kFixtures + "/grouped_conv_wrong.axioms";
  o.checks = {"sweep"};
  o.sweep.sizes = {1, 2};
  o.out_dir = scratch.file("rerun");
  const ValidationRun first = run_validation(o);
  EXPECT_EQ(first.resumed_chunks, 0u);
  const ValidationRun second = run_validation(o);
  EXPECT_EQ(second.resumed_chunks, first.report.chunks.size());
  // A file another checker wrote is not resumed.
  const std::string path = shard_file(o.out_dir, 0, 1);
  std::string text = read_file_bytes(path);
  const std::string checker = "\"checker\": \"" + checker_identity() + "\"";
  ASSERT_NE(text.find(checker), std::string::npos);
  text.replace(text.find(checker), checker.size(), "\"checker\": \"r0\"");
  write_file_atomic(path, text);
  EXPECT_EQ(run_validation(o).resumed_chunks, 0u);
  // Other sizes are another run: nothing is reused.
  o.sweep.sizes = {1, 3};
  EXPECT_EQ(run_validation(o).resumed_chunks, 0u);
}

} // namespace
} // namespace quarry::validate_axioms
