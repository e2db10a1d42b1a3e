//===- cmd_report.cc - `quarry report`: a run's results at a glance -------===//
//
//   quarry report RUN [--out report.html] [--json summary.json] [--quiet]
//
// Reads what each stage of the run directory has written, prints the
// summary table and writes the HTML page and the JSON summary (by default
// RUN/report.html and RUN/summary.json).
//
//===----------------------------------------------------------------------===//
#include "commands.h"

#include "quarry/pipeline/run_layout.h"
#include "quarry/report/report_files.h"
#include "quarry/report/summary_table.h"

#include <iostream>
#include <memory>

namespace quarry::cli {

void register_report_command(CLI::App &app) {
  struct Options {
    std::string run, out, json;
    bool quiet = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App *cmd = app.add_subcommand(
      "report", "Summarize a pipeline run: a table, a JSON summary and an "
                "HTML page with plots");
  cmd->add_option("RUN", o->run, "Run directory")->required();
  cmd->add_option("--out", o->out,
                  "HTML page to write (default RUN/report.html)");
  cmd->add_option("--json", o->json,
                  "JSON summary to write (default RUN/summary.json)");
  cmd->add_flag("--quiet", o->quiet, "Print nothing");
  cmd->callback([o] {
    const pipeline::RunLayout run(o->run);
    const std::string html = o->out.empty() ? run.report_html() : o->out;
    const std::string json = o->json.empty() ? run.summary() : o->json;
    const report::RunSummary summary =
        report::write_run_report(run, html, json);
    if (o->quiet)
      return;
    std::cout << report::summary_table(summary) << "wrote " << html << " and "
              << json << "\n";
  });
}

} // namespace quarry::cli
