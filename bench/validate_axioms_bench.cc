//===- validate_axioms_bench.cc - Speed of the symbolic sweep -------------===//
//
//   validate_axioms_bench [--axioms FILE] [--sizes 1,2,3,4] [--threads N]
//                         [--only NAME,...] [--sample K]
//
// Prints JSON: per axiom the number of cases of the sweep and, on a sample of
// every K-th chunk (K = 1: all of them), cases per second per core and the
// projected time of the whole axiom; then the totals. With --sample 1 it is
// the full sweep and the projection is the measurement.
//
//===----------------------------------------------------------------------===//
#include "bench_cli.h"
#include "provenance.h"

#include "quarry/core/split_list.h"
#include "quarry/validate_axioms/case_space.h"
#include "quarry/validate_axioms/sweep.h"
#include "quarry/verify/axiom_file.h"

#include <nlohmann/json.hpp>
#include <tbb/parallel_for_each.h>
#include <tbb/task_arena.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>
#include <sstream>

using namespace quarry;
using namespace quarry::validate_axioms;

int main(int argc, char **argv) {
  std::string axioms_path = QUARRY_SOURCE_DIR "/axioms/taso.axioms";
  SweepOptions opts;
  std::set<std::string> only;
  uint64_t sample = 1;
  std::string only_list;
  CLI::App app{"Speed of the symbolic sweep of the axioms, as JSON",
               "validate_axioms_bench"};
  bench::flag_defaults(app);
  app.add_option("--axioms", axioms_path, "Axiom file");
  app.add_option("--sizes", opts.sizes,
                 "Dimension sizes of the sweep, comma-separated")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("--threads", opts.threads, "Worker threads");
  app.add_option("--only", only_list,
                 "Only these axioms, comma-separated (default: all)");
  app.add_option("--sample", sample,
                 "Sweep every K-th chunk and project the rest (1: all)");
  bench::parse_or_exit(app, argc, argv);
  for (const std::string &s : quarry::split_list(only_list))
    only.insert(s);
  const verify::AxiomFile file = verify::read_axiom_file(axioms_path);
  std::vector<Chunk> chunks;
  for (const Chunk &c : plan_chunks(file, opts))
    if ((only.empty() || only.count(file.axioms[c.axiom].name)) &&
        c.id % sample == 0)
      chunks.push_back(c);
  std::vector<SweepCounts> per(file.axioms.size());
  std::vector<uint64_t> sampled(file.axioms.size());
  std::mutex mutex;
  const auto start = std::chrono::steady_clock::now();
  tbb::task_arena arena(opts.threads);
  arena.execute([&] {
    tbb::parallel_for_each(chunks.begin(), chunks.end(), [&](const Chunk &c) {
      const ChunkResult r = run_chunk(file, c, opts);
      std::lock_guard lock(mutex);
      per[c.axiom] += r.counts;
      sampled[c.axiom] += c.end - c.begin;
    });
  });
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  nlohmann::json out = bench::provenance(argc, argv);
  out["axioms_file"] = bench::portable_paths(axioms_path);
  out["sizes"] = opts.sizes;
  out["threads"] = opts.threads;
  out["sample_every_kth_chunk"] = sample;
  double projected_core_s = 0, projected_cases = 0, cases = 0, cpu = 0;
  uint64_t failed = 0;
  for (size_t a = 0; a < file.axioms.size(); ++a) {
    const verify::Axiom &ax = file.axioms[a];
    if (!ax.domain || (!only.empty() && !only.count(ax.name)))
      continue;
    const uint64_t space = CaseSpace(ax, opts.sizes).size();
    const SweepCounts &c = per[a];
    const double scale = sampled[a] ? double(space) / sampled[a] : 0;
    projected_core_s += c.seconds * scale;
    projected_cases += c.cases() * scale;
    cases += c.cases();
    cpu += c.seconds;
    failed += c.failed;
    out["axioms"].push_back({{"name", ax.name},
                             {"assignments", space},
                             {"cases_measured", c.cases()},
                             {"skipped_measured", c.skipped},
                             {"failed_measured", c.failed},
                             {"core_seconds_measured", c.seconds},
                             {"projected_cases", c.cases() * scale},
                             {"projected_core_seconds", c.seconds * scale}});
  }
  out["cases_measured"] = cases;
  out["failed_measured"] = failed;
  out["wall_seconds"] = wall;
  out["cases_per_second_per_core"] = cpu > 0 ? cases / cpu : 0;
  out["projected_cases"] = projected_cases;
  out["projected_core_seconds"] = projected_core_s;
  out["projected_wall_seconds_on_threads"] = projected_core_s / opts.threads;
  std::printf("%s\n", out.dump(2).c_str());
  return 0;
}
