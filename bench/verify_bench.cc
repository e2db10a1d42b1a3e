//===- verify_bench.cc - Time to verify a rule pack -----------------------===//
//
//   verify_bench [AXIOMS] [RULES] [TIMEOUT_S]
//
// Verifies the pack (default: axioms/taso.axioms against TASO's
// graph_subst.pb) at 1 and 2 threads and prints JSON: per-rule median and
// maximum seconds, wall time per thread count, and outcome counts.
//
//===----------------------------------------------------------------------===//
#include "quarry/rules/rule_pack_io.h"
#include "quarry/verify/report.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <string>

int main(int argc, char **argv) {
  using namespace quarry::verify;
  const std::string axioms_path =
      argc > 1 ? argv[1] : QUARRY_SOURCE_DIR "/axioms/taso.axioms";
  const std::string rules_path = argc > 2 ? argv[2]
                                          : QUARRY_SOURCE_DIR
                                     "/../shared/data/taso_graph_subst.pb";
  VerifyOptions opts;
  opts.timeout_s = argc > 3 ? std::stod(argv[3]) : 10;
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
    nlohmann::json out = {{"benchmark", "verify"},
                          {"axioms", axioms_path},
                          {"axiom_count", axioms.axioms.size()},
                          {"rules", rules_path},
                          {"rule_count", pack.rules.size()},
                          {"timeout_s", opts.timeout_s},
                          {"runs", runs}};
    std::printf("%s\n", out.dump(2).c_str());
  } catch (const quarry::Error &e) {
    std::fprintf(stderr, "verify_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
