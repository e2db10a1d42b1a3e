//===- main.cc - quarry: the command-line entry point ---------------------===//
//
// Parses flags and dispatches to the subcommands; every failure becomes one
// line on stderr and a non-zero exit: "quarry <command>: <what>" and status
// 2 for a usage error (cli_grammar.h), "quarry: <what>" and 1 otherwise, 3
// for an internal error.
//
//===----------------------------------------------------------------------===//
#include "cli_grammar.h"
#include "commands.h"

#include "quarry/core/error.h"
#include "quarry/core/memory_limit.h"

#include <cstdio>
#include <exception>
#include <new>
#include <string>

#ifndef QUARRY_VERSION
#define QUARRY_VERSION "unknown"
#endif

namespace {

/// One line for a usage error, naming the command and where its usage is.
int usage_error(const CLI::App &app, std::string what) {
  for (char &c : what)
    if (c == '\n')
      c = ' ';
  while (!what.empty() && what.back() == ' ')
    what.pop_back();
  const std::string path = quarry::cli::command_path(app);
  std::fprintf(stderr, "%s: %s (%s --help)\n", path.c_str(), what.c_str(),
               path.c_str());
  return quarry::cli::kUsageExit;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"quarry: discover, prove and use graph substitutions", "quarry"};
  app.set_version_flag("--version", QUARRY_VERSION);
  app.require_subcommand(1);
  quarry::cli::register_graph_command(app);
  quarry::cli::register_rules_command(app);
  quarry::cli::register_generate_command(app);
  quarry::cli::register_candidates_command(app);
  quarry::cli::register_verify_command(app);
  quarry::cli::register_run_command(app);
  quarry::cli::register_cost_command(app);
  quarry::cli::register_models_command(app);
  quarry::cli::register_onnx_commands(app);
  quarry::cli::register_validate_axioms_command(app);
  quarry::cli::register_optimize_command(app);
  quarry::cli::register_pipeline_command(app);
  quarry::cli::register_report_command(app);
  quarry::cli::register_conformance_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success))
      return app.exit(e); // --help, --version
    return usage_error(app, e.what());
  } catch (const quarry::cli::UsageError &e) {
    return usage_error(app, e.what());
  } catch (const quarry::Error &e) {
    std::fprintf(stderr, "quarry: %s\n", e.what());
    return 1;
  } catch (const std::bad_alloc &) {
    // What sizing beforehand did not foresee: one line, as for any limit.
    const auto limit = quarry::allocatable_memory();
    std::fprintf(stderr, "quarry: out of memory: an allocation failed%s%s\n",
                 limit ? ", limited by " : "",
                 limit ? limit->source.c_str() : "");
    return 1;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "quarry: internal error: %s\n", e.what());
    return quarry::cli::kInternalExit;
  }
  return 0;
}
