//===- verify_bench.cc - Time to verify a rule pack -----------------------===//
//
//   verify_bench [AXIOMS] [RULES] [TIMEOUT_S]
//
// Verifies the pack (default: axioms/taso.axioms against TASO's
// graph_subst.pb) at 1 and 2 threads and prints JSON: per-rule median and
// maximum seconds, wall time per thread count, and outcome counts.
//
//===----------------------------------------------------------------------===//
#include "bench_cli.h"
#include "provenance.h"

#include "quarry/rulepack/rule_pack_io.h"
#include "quarry/verify/report.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <string>

int main(int argc, char **argv) {
  using namespace quarry::verify;
  std::string axioms_path = QUARRY_SOURCE_DIR "/axioms/taso.axioms";
  std::string rules_path =
      QUARRY_SOURCE_DIR "/../shared/data/taso_graph_subst.pb";
  VerifyOptions opts;
  opts.timeout_s = 10;
  CLI::App app{"Time to verify a rule pack at 1 and 2 threads, as JSON",
               "verify_bench"};
  quarry::bench::flag_defaults(app);
  app.add_option("AXIOMS", axioms_path, "Axiom file");
  app.add_option("RULES", rules_path, "Rule pack to verify");
  app.add_option("TIMEOUT_S", opts.timeout_s,
                 "Seconds per rule, at most (as Z3 resources)");
  quarry::bench::parse_or_exit(app, argc, argv);
  try {
    const AxiomFile axioms = read_axiom_file(axioms_path);
    const quarry::RulePack pack = quarry::read_rule_pack(rules_path);
    nlohmann::json runs = nlohmann::json::array();
    for (int threads : {1, 2}) {
      opts.threads = threads;
      const auto start = std::chrono::steady_clock::now();
      const auto results = verify_rules(axioms, pack.rules, opts);
      const double wall = std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - start)
                              .count();
      const Totals t = totals(results);
      runs.push_back({{"threads", threads},
                      {"wall_seconds", wall},
                      {"rule_median_seconds", t.median_seconds},
                      {"rule_max_seconds", t.max_seconds},
                      {"proved", t.proved},
                      {"proved_with_precondition", t.proved_with_precondition},
                      {"unproved", t.unproved},
                      {"refuted", t.refuted}});
    }
    nlohmann::json out = {
        {"benchmark", "verify"},
        {"axioms", quarry::bench::portable_paths(axioms_path)},
        {"axiom_count", axioms.axioms.size()},
        {"rules", quarry::bench::portable_paths(rules_path)},
        {"rule_count", pack.rules.size()},
        {"timeout_s", opts.timeout_s},
        {"runs", runs}};
    out.update(quarry::bench::provenance(argc, argv));
    out["rules_hash"] = quarry::bench::file_hash(rules_path);
    std::printf("%s\n", out.dump(2).c_str());
  } catch (const quarry::Error &e) {
    std::fprintf(stderr, "verify_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
