//===- cmd_generate.cc - `quarry generate`: the distributed generator -----===//
//
//   [mpirun -np N] quarry generate --config configs/taso.gen --max-ops 3
//                                  --out DIR [--seed S] [--quiet]
//
//===----------------------------------------------------------------------===//
#include "commands.h"

#include "quarry/generate/generate.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>

namespace quarry::cli {

namespace {

void print_summary(const GenerateOutcome &r) {
  const Manifest &m = r.manifest;
  std::cout << (r.already_complete ? "already complete: " : "") << "ranks "
            << m.ranks << ", max-ops " << m.max_ops << ", seed " << m.seed
            << "\n";
  if (r.resumed_batches > 0)
    std::cout << "  resumed: " << r.resumed_batches
              << " batches kept from an interrupted attempt\n";
  for (const auto &[stage, count] : m.totals)
    std::cout << "  " << stage << ": " << count << "\n";
  std::cout << "  seconds: " << m.seconds << "\n";
}

} // namespace

void register_generate_command(CLI::App &app) {
  auto o = std::make_shared<GenerateOptions>();
  CLI::App *cmd = app.add_subcommand(
      "generate", "Enumerate graphs and find candidate substitutions "
                  "(run under mpirun for several ranks)");
  cmd->add_option("--config", o->config_path, "Generator config file")
      ->required();
  cmd->add_option("--max-ops", o->max_ops, "Largest graph, in operators")
      ->required();
  cmd->add_option("--out", o->out_dir, "Run directory (shards, manifest)")
      ->required();
  cmd->add_option("--seed", o->seed, "Seed of the random exact inputs");
  cmd->add_flag("--quiet", o->quiet, "No progress line");
  cmd->add_flag("--keep-batches", o->keep_batches,
                "Keep DIR/batches (batch files) after finishing");
  cmd->add_option("--exchange-batch", o->exchange_batch,
                  "Records per rank per exchange round");
  cmd->add_option("--memory-per-rank", o->memory_per_rank,
                  "Bytes of graph records a rank holds at once (classes are "
                  "formed in more passes beyond it)");
  cmd->add_option("--units-per-batch", o->units_per_batch,
                  "Work units per resumable batch file");
  // Test-only hooks; not part of the documented interface.
  cmd->add_option("--fingerprint-bits", o->fingerprint_bits)->group("");
  cmd->add_option("--exit-after-batches", o->exit_after_batches)->group("");
  cmd->add_option("--exit-rank", o->exit_rank)->group("");
  cmd->callback([o] {
    int rc = 0;
    {
      MpiSession mpi(nullptr, nullptr);
      Comm comm;
      try {
        const GenerateOutcome r = run_generate(*o, comm);
        if (comm.rank() == 0)
          print_summary(r);
      } catch (const CollectiveError &e) {
        if (comm.rank() == 0)
          std::fprintf(stderr, "quarry: %s\n", e.what());
        rc = 1;
      } catch (const std::exception &e) {
        std::fprintf(stderr, "quarry: %s\n", e.what());
        if (comm.size() > 1)
          MpiSession::abort_all(1);
        rc = 1;
      }
    }
    if (rc != 0)
      std::exit(rc);
  });
}

} // namespace quarry::cli
