//===- commands.h - The quarry CLI's subcommands ---------------*- C++ -*-===//
//
// Each subcommand lives in its own cmd_<name>.cc and only parses flags and
// calls libraries. register_* adds the subcommand to the app; the callback
// it installs runs when the subcommand is chosen.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <CLI/CLI.hpp>

namespace quarry::cli {

void register_graph_command(CLI::App &app);
void register_rules_command(CLI::App &app);
void register_generate_command(CLI::App &app);
void register_candidates_command(CLI::App &app);
void register_verify_command(CLI::App &app);
void register_run_command(CLI::App &app);
void register_cost_command(CLI::App &app);
void register_models_command(CLI::App &app);
void register_onnx_commands(CLI::App &app);
void register_validate_axioms_command(CLI::App &app);
void register_optimize_command(CLI::App &app);
void register_pipeline_command(CLI::App &app);
void register_report_command(CLI::App &app);
void register_conformance_command(CLI::App &app);

} // namespace quarry::cli
