//===- cmd_candidates.cc - `quarry candidates`: use a generator run -------===//
//
//   quarry candidates export DIR --out rules.pb   unverified rule pack
//   quarry candidates stats DIR                   totals of each stage
//
//===----------------------------------------------------------------------===//
#include "commands.h"

#include "quarry/dedupe/export.h"
#include "quarry/rulepack/rule_pack_io.h"

#include <iostream>
#include <memory>

namespace quarry::cli {

void register_candidates_command(CLI::App &app) {
  CLI::App *cmd =
      app.add_subcommand("candidates", "Inspect and export a generator run");
  cmd->require_subcommand(1);

  struct ExportOptions {
    std::string dir, out;
  };
  auto ex = std::make_shared<ExportOptions>();
  CLI::App *exp = cmd->add_subcommand(
      "export", "Write the candidates of a run as an (unverified) rule pack");
  exp->add_option("DIR", ex->dir, "Run directory")->required();
  exp->add_option("--out", ex->out, "Rule pack to write")->required();
  exp->callback([ex] {
    const RulePack pack = export_candidates(ex->dir);
    write_rule_pack(pack, ex->out);
    std::cout << "wrote " << pack.rules.size() << " rules to " << ex->out
              << "\n";
  });

  auto dir = std::make_shared<std::string>();
  CLI::App *stats =
      cmd->add_subcommand("stats", "Print the totals of a finished run");
  stats->add_option("DIR", *dir, "Run directory")->required();
  stats->callback([dir] {
    const Manifest m = check_run_directory(*dir);
    std::cout << "config " << m.config_file << ", max-ops " << m.max_ops
              << ", seed " << m.seed << ", ranks " << m.ranks << "\n";
    for (const auto &[stage, count] : m.totals)
      std::cout << stage << " " << count << "\n";
    std::cout << "shards " << m.shards.size() << "\n";
    std::cout << "seconds " << m.seconds << "\n";
    std::cout << "peak_rss_bytes_per_rank " << m.peak_rss_bytes << "\n";
  });
}

} // namespace quarry::cli
