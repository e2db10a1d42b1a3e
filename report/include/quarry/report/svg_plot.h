//===- svg_plot.h - Small static SVG plots --------------------*- C++ -*-===//
//
// Three plots, each an inline <svg> element for an HTML page: horizontal
// bars, horizontal bars grouped by series, and a histogram over log-spaced
// bins. They draw with CSS classes rather than colours (bars `s0`, `s1`,
// ...; lines `axis`; text takes the page's colour), so the page's style
// decides how they look in light and dark themes. All text is escaped; no
// scripts, fonts or other files are referenced.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/report/log_bins.h"

#include <string>
#include <string_view>
#include <vector>

namespace quarry::report {

struct Bar {
  std::string label;
  double value = 0;
};

/// One row per bar, labelled, its value written after it. With `log_scale`
/// a bar's length is proportional to log10(1 + value), for counts that
/// span orders of magnitude.
std::string bar_chart(std::string_view title, const std::vector<Bar> &bars,
                      bool log_scale = false);

/// A labelled group of values, one per series.
struct BarGroup {
  std::string label;
  std::vector<double> values;
};

/// One row per group and series (series i drawn with class `s<i>`), a
/// legend naming the series, values followed by `unit`.
std::string grouped_bar_chart(std::string_view title,
                              const std::vector<std::string> &series,
                              const std::vector<BarGroup> &groups,
                              std::string_view unit = {});

/// Vertical bars over log-spaced bins of seconds, decade edges labelled,
/// `axis_label` under the axis.
std::string histogram_chart(std::string_view title, const LogBins &bins,
                            std::string_view axis_label);

} // namespace quarry::report
