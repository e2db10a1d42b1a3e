//===- report_files.cc - Writing a run's report files ---------------------===//
#include "quarry/report/report_files.h"

#include "quarry/core/error.h"
#include "quarry/core/file_io.h"
#include "quarry/report/html_page.h"
#include "quarry/report/summary_json.h"

#include <filesystem>

namespace quarry::report {

namespace {

void check_folder(const std::string &path) {
  const std::filesystem::path folder =
      std::filesystem::path(path).parent_path();
  if (!folder.empty() && !std::filesystem::is_directory(folder))
    throw Error(path + ": cannot write: no folder " + folder.string());
}

} // namespace

void write_report_files(const RunSummary &summary, const std::string &html_path,
                        const std::string &json_path) {
  const std::string html = html_page(summary);
  const std::string json = summary_json(summary);
  check_folder(html_path);
  check_folder(json_path);
  write_file_atomic(html_path, html);
  write_file_atomic(json_path, json);
}

RunSummary write_run_report(const pipeline::RunLayout &run,
                            const std::string &html_path,
                            const std::string &json_path) {
  RunSummary summary = read_run_summary(run);
  write_report_files(summary, html_path, json_path);
  return summary;
}

} // namespace quarry::report
