//===- cmd_conformance.cc - quarry conformance: ONNX's test cases ---------===//
#include "commands.h"
#include "run_flags.h"

#include "quarry/conformance/conformance.h"
#include "quarry/core/error.h"
#include "quarry/core/file_io.h"

#include <cstdio>
#include <memory>

namespace quarry::cli {

namespace {

struct ConformanceOptions {
  std::vector<std::string> dirs;
  std::string json;
  bool quiet = false;
  conformance::Options run;
};

void run_conformance(const ConformanceOptions &o) {
  using namespace conformance;
  const std::vector<std::string> cases = find_cases(o.dirs);
  std::vector<CaseResult> results;
  for (const std::string &dir : cases) {
    results.push_back(run_case(dir, o.run));
    const CaseResult &r = results.back();
    if (r.outcome == Outcome::Pass) {
      if (!o.quiet)
        std::printf("pass %s\n", r.name.c_str());
    } else {
      std::printf("%s %s: %s\n", outcome_name(r.outcome), r.name.c_str(),
                  r.detail.c_str());
    }
    std::fflush(stdout);
  }
  if (!o.json.empty())
    write_file_atomic(o.json, summary_json(results, o.run));
  const auto [total, float32, inference] = totals(results);
  std::printf("float32 inference cases: %d passed, %d failed, %d unsupported\n",
              float32.passed, float32.failed, float32.unsupported);
  std::printf("float32, float16 and 8-bit inference cases: %d passed, %d "
              "failed, %d unsupported\n",
              inference.passed, inference.failed, inference.unsupported);
  std::printf("%d passed, %d failed, %d unsupported\n", total.passed,
              total.failed, total.unsupported);
  if (total.failed > 0)
    throw Error("conformance: " + std::to_string(total.failed) +
                " case(s) failed on " + o.run.backend);
}

} // namespace

void register_conformance_command(CLI::App &app) {
  auto o = std::make_shared<ConformanceOptions>();
  auto *cmd = app.add_subcommand(
      "conformance",
      "Run ONNX backend test cases (model.onnx with test_data_set_N) and "
      "say which pass, fail or are unsupported");
  cmd->add_option("DIRS", o->dirs,
                  "Case directories, or directories of cases (e.g. "
                  "/usr/share/libonnx-testdata/data/node)")
      ->required();
  cmd->add_option("--backend", o->run.backend, "reference or cpu")
      ->check(CLI::IsMember({"reference", "cpu", "cuda"}));
  cmd->add_option("--json", o->json, "Write every case's outcome as JSON");
  cmd->add_option("--rtol", o->run.rtol, "Relative tolerance (ONNX's: 1e-3)");
  cmd->add_option("--atol", o->run.atol, "Absolute tolerance (ONNX's: 1e-7)");
  cmd->add_option("--threads", o->run.threads, "Backend threads")
      ->check(CLI::PositiveNumber);
  add_streams_flag(*cmd, o->run.streams,
                   "Streams (cuda); cpu: other than 1 runs the multi-stream "
                   "plan on host threads by reference semantics, to check it");
  cmd->add_flag("--quiet", o->quiet, "Print only cases that do not pass");
  cmd->callback([o] { run_conformance(*o); });
}

} // namespace quarry::cli
