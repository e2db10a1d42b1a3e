//===- svg_plot.cc - Small static SVG plots -------------------------------===//
//
// Sizes are in CSS pixels for 12 px text; label columns are sized from the
// longest label at about 7 px a character, so no font metrics are needed.
//
//===----------------------------------------------------------------------===//
#include "quarry/report/svg_plot.h"

#include "quarry/report/html_escape.h"
#include "quarry/report/number_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace quarry::report {

namespace {

constexpr double kWidth = 640;
constexpr double kCharWidth = 7;
constexpr double kValueSpace = 96; // room for the value after a bar

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// Elements are appended in drawing order; the caller closes nothing.
class Svg {
public:
  Svg(std::string_view title, double height) {
    out_ = "<svg role=\"img\" aria-label=\"" + escape_html(title) +
           "\" width=\"" + num(kWidth) + "\" height=\"" + num(height) +
           "\" viewBox=\"0 0 " + num(kWidth) + " " + num(height) +
           "\"><title>" + escape_html(title) + "</title>\n";
  }
  void rect(double x, double y, double w, double h, std::string_view cls) {
    out_ += "<rect class=\"" + std::string(cls) + "\" x=\"" + num(x) +
            "\" y=\"" + num(y) + "\" width=\"" + num(w) + "\" height=\"" +
            num(h) + "\"/>\n";
  }
  void text(double x, double y, std::string_view anchor,
            std::string_view content) {
    out_ += "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" +
            std::string(anchor) + "\">" + escape_html(content) + "</text>\n";
  }
  void line(double x1, double y1, double x2, double y2) {
    out_ += "<line class=\"axis\" x1=\"" + num(x1) + "\" y1=\"" + num(y1) +
            "\" x2=\"" + num(x2) + "\" y2=\"" + num(y2) + "\"/>\n";
  }
  std::string finish() { return out_ + "</svg>\n"; }

private:
  std::string out_;
};

template <class Labels> double label_width(const Labels &labels) {
  size_t longest = 0;
  for (const auto &l : labels)
    longest = std::max(longest, l.size());
  return std::clamp(static_cast<double>(longest) * kCharWidth + 12, 60.0,
                    240.0);
}

// Length of a bar for `value` when the longest is `max` (at least 1 px for
// a non-zero value, so it is seen).
double bar_length(double value, double max, double room, bool log_scale) {
  if (value <= 0 || max <= 0)
    return 0;
  const double frac =
      log_scale ? std::log10(1 + value) / std::log10(1 + max) : value / max;
  return std::max(1.0, frac * room);
}

std::string series_class(size_t i) { return "s" + std::to_string(i % 4); }

} // namespace

std::string bar_chart(std::string_view title, const std::vector<Bar> &bars,
                      bool log_scale) {
  constexpr double kRow = 22, kTop = 6;
  std::vector<std::string> labels;
  double max = 0;
  for (const Bar &b : bars) {
    labels.push_back(b.label);
    max = std::max(max, b.value);
  }
  const double left = label_width(labels);
  const double room = kWidth - left - kValueSpace;
  Svg svg(title, kTop * 2 + kRow * static_cast<double>(bars.size()));
  for (size_t i = 0; i < bars.size(); ++i) {
    const double y = kTop + kRow * static_cast<double>(i);
    const double len = bar_length(bars[i].value, max, room, log_scale);
    svg.text(left - 6, y + 15, "end", bars[i].label);
    svg.rect(left, y + 4, len, 14, "s0");
    svg.text(left + len + 6, y + 15, "start", value_text(bars[i].value));
  }
  return svg.finish();
}

std::string grouped_bar_chart(std::string_view title,
                              const std::vector<std::string> &series,
                              const std::vector<BarGroup> &groups,
                              std::string_view unit) {
  constexpr double kRow = 16, kGap = 8, kLegend = 24;
  std::vector<std::string> labels;
  double max = 0;
  for (const BarGroup &g : groups) {
    labels.push_back(g.label);
    for (double v : g.values)
      max = std::max(max, v);
  }
  const double left = label_width(labels);
  const double room = kWidth - left - kValueSpace;
  const double group_height = kRow * static_cast<double>(series.size()) + kGap;
  Svg svg(title, kLegend + group_height * static_cast<double>(groups.size()));
  double x = left;
  for (size_t s = 0; s < series.size(); ++s) {
    svg.rect(x, 6, 12, 12, series_class(s));
    svg.text(x + 16, 16, "start", series[s]);
    x += 28 + kCharWidth * static_cast<double>(series[s].size());
  }
  const std::string suffix = unit.empty() ? "" : " " + std::string(unit);
  for (size_t g = 0; g < groups.size(); ++g) {
    const double top = kLegend + group_height * static_cast<double>(g);
    svg.text(left - 6, top + group_height / 2, "end", groups[g].label);
    for (size_t s = 0; s < series.size() && s < groups[g].values.size(); ++s) {
      const double v = groups[g].values[s];
      const double y = top + kRow * static_cast<double>(s);
      const double len = bar_length(v, max, room, false);
      svg.rect(left, y + 2, len, 12, series_class(s));
      svg.text(left + len + 6, y + 12, "start", value_text(v) + suffix);
    }
  }
  return svg.finish();
}

std::string histogram_chart(std::string_view title, const LogBins &bins,
                            std::string_view axis_label) {
  constexpr double kHeight = 200, kLeft = 28, kRight = 28, kTop = 18,
                   kBottom = 40;
  const double plot_w = kWidth - kLeft - kRight;
  const double plot_h = kHeight - kTop - kBottom;
  const double base = kTop + plot_h;
  Svg svg(title, kHeight);
  const size_t n = bins.counts.size();
  if (n == 0)
    return svg.finish();
  const int64_t max = *std::max_element(bins.counts.begin(), bins.counts.end());
  const double bar_w = plot_w / static_cast<double>(n);
  for (size_t i = 0; i < n; ++i) {
    const double x = kLeft + bar_w * static_cast<double>(i);
    const int64_t c = bins.counts[i];
    if (c > 0) {
      const double h = std::max(1.0, plot_h * static_cast<double>(c) /
                                         static_cast<double>(max));
      svg.rect(x + 1, base - h, bar_w - 2, h, "s0");
      svg.text(x + bar_w / 2, base - h - 4, "middle", count_text(c));
    }
  }
  svg.line(kLeft, base, kLeft + plot_w, base);
  // Label the decade edges; with fewer bins than a decade, both ends.
  for (size_t i = 0; i <= n; ++i) {
    const int k = bins.first + static_cast<int>(i);
    const bool decade = k % bins.per_decade == 0;
    if (!decade &&
        !(n < static_cast<size_t>(bins.per_decade) && (i == 0 || i == n)))
      continue;
    const double x = kLeft + bar_w * static_cast<double>(i);
    svg.line(x, base, x, base + 4);
    svg.text(x, base + 17, "middle", seconds_text(bins.edge(k)));
  }
  svg.text(kLeft + plot_w / 2, kHeight - 4, "middle", axis_label);
  return svg.finish();
}

} // namespace quarry::report
