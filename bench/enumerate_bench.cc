//===- enumerate_bench.cc - Enumeration speed on one core -----------------===//
//
// Enumerates a config's whole search space in one process (no MPI, no
// files) and prints JSON: graphs, seconds per repeat (median), graphs per
// second, pruned tensors and peak resident memory. This is the per-core
// speed of the generator's first phase.
//
//   build/bin/enumerate_bench [--config configs/taso.gen] [--max-ops 3]
//                             [--repeats 3] [--seed 1]
//
//===----------------------------------------------------------------------===//
#include "bench_cli.h"
#include "provenance.h"

#include "quarry/core/timed_in_turn.h"
#include "quarry/enumerate/enumerator.h"

#include <nlohmann/json.hpp>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  std::string config = "configs/taso.gen";
  int max_ops = 3, repeats = 3;
  uint64_t seed = 1;
  CLI::App app{"Enumeration speed on one core, as JSON", "enumerate_bench"};
  quarry::bench::flag_defaults(app);
  app.add_option("--config", config, "Generator config");
  app.add_option("--max-ops", max_ops, "Operators per graph, at most");
  app.add_option("--repeats", repeats,
                 "Enumerations of the whole space; the median counts");
  app.add_option("--seed", seed, "Seed of the random field inputs");
  quarry::bench::parse_or_exit(app, argc, argv);
  try {
    const quarry::GenConfig cfg = quarry::read_gen_config(config);
    quarry::EnumStats stats;
    quarry::TurnPolicy policy;
    policy.rounds = repeats;
    const auto ms = quarry::time_in_turn(
        std::vector<std::function<double()>>{[&] {
          quarry::Enumerator e(cfg, max_ops, seed);
          uint64_t sink = 0;
          const double t = quarry::time_ms([&] {
            e.run([](uint64_t) { return true; },
                  [&](const quarry::GraphRecord &g) { sink ^= g.fp; });
          });
          stats = e.stats();
          if (sink == 42)
            std::puts(""); // keeps the records observable
          return t;
        }},
        policy);
    const double median = quarry::median(ms[0]) / 1e3;
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    nlohmann::ordered_json j = quarry::bench::provenance(argc, argv);
    j["benchmark"] = "enumerate";
    j["config"] = config;
    j["max_ops"] = max_ops;
    j["repeats"] = repeats;
    j["graphs"] = stats.graphs;
    j["units"] = stats.units;
    j["pruned_equal_tensors"] = stats.pruned_equal;
    j["median_seconds"] = median;
    j["graphs_per_second"] = static_cast<double>(stats.graphs) / median;
    j["peak_rss_bytes"] = static_cast<uint64_t>(u.ru_maxrss) * 1024;
    std::cout << j.dump(2) << "\n";
  } catch (const std::exception &e) {
    std::fprintf(stderr, "enumerate_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
