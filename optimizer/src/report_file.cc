//===- report_file.cc - An optimization's report, read back ---------------===//
//
// The reading half of report.cc: the same field names, in the same module.
//
//===----------------------------------------------------------------------===//
#include "quarry/optimizer/report_file.h"

#include "quarry/core/json_field.h"

namespace quarry::opt {

namespace {

std::string optional_text(const JsonField &f, std::string_view key) {
  return f.has(key) ? f[key].text() : std::string();
}

std::optional<double> optional_number(const JsonField &f,
                                      std::string_view key) {
  return f.has(key) ? std::optional<double>(f[key].number()) : std::nullopt;
}

} // namespace

ReportFile read_report_file(const std::string &path) {
  const JsonField::Json j = JsonField::parse_file(path);
  const JsonField f(j, path);
  ReportFile o;
  o.model = f["model"].text();
  o.backend = f["backend"].text();
  o.cost_before_ms = f["cost_ms"]["before"].number();
  o.cost_after_ms = f["cost_ms"]["after"].number();
  o.operators_before = f["operators"]["before"].integer();
  o.operators_after = f["operators"]["after"].integer();
  f["applied"].for_each([&](const JsonField &a) {
    o.applied.push_back({a["name"].text(), optional_text(a, "text"),
                         optional_text(a, "family"),
                         optional_number(a, "measured_gain")});
  });
  if (f.has("families"))
    f["families"].for_each([&](const JsonField &a) {
      o.families.push_back({a["family"].text(), a["steps"].integer(),
                            optional_number(a, "measured_gain")});
    });
  if (f.has("selection")) {
    const JsonField sel = f["selection"];
    int64_t timed = 0;
    sel["timed"].for_each([&](const JsonField &) { ++timed; });
    o.selection = ReportFile::Selection{timed, sel["kept_original"].boolean(),
                                        sel["predicted_speedup"].number(),
                                        sel["measured_speedup"].number()};
  }
  o.expanded = f["search"]["expanded"].integer();
  o.search_seconds = f["search"]["seconds"].number();
  if (f.has("check")) {
    const JsonField c = f["check"];
    o.latency = ReportFile::Latency{
        c["latency_ms_before"].number(), c["latency_ms_after"].number(),
        c["speedup"].number(), c["max_relative_error"].number()};
  }
  return o;
}

} // namespace quarry::opt
