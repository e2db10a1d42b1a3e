//===- plot_test.cc - Numbers, escaping, log bins and SVG plots -----------===//
#include "quarry/report/html_escape.h"
#include "quarry/report/log_bins.h"
#include "quarry/report/number_text.h"
#include "quarry/report/svg_plot.h"

#include "fixture_run.h"

#include <gtest/gtest.h>

#include <random>
#include <regex>

namespace quarry::report {
namespace {

using testing::count;

// The width="..." of each <rect> of class `cls`, in order.
std::vector<double> rect_widths(const std::string &svg,
                                const std::string &cls) {
  std::vector<double> out;
  const std::regex rect("<rect class=\"" + cls +
                        "\" x=\"[0-9.]+\" y=\"[0-9.]+\" width=\"([0-9.]+)\"");
  for (std::sregex_iterator it(svg.begin(), svg.end(), rect), end; it != end;
       ++it)
    out.push_back(std::stod((*it)[1]));
  return out;
}

TEST(NumberText, Forms) {
  EXPECT_EQ(count_text(0), "0");
  EXPECT_EQ(count_text(999), "999");
  EXPECT_EQ(count_text(1000), "1,000");
  EXPECT_EQ(count_text(1460000), "1,460,000");
  EXPECT_EQ(count_text(-1234), "-1,234");
  EXPECT_EQ(seconds_text(0.00085), "850 us");
  EXPECT_EQ(seconds_text(0.0091076005), "9.11 ms");
  EXPECT_EQ(seconds_text(5.001174114), "5.00 s");
  EXPECT_EQ(seconds_text(300), "5.0 min");
  EXPECT_EQ(ms_text(10.027746), "10.03 ms");
  EXPECT_EQ(ratio_text(1.3382924), "1.34x");
  EXPECT_EQ(value_text(30), "30");
  EXPECT_EQ(value_text(10145), "10,145");
  EXPECT_EQ(value_text(0.02134), "0.0213");
  EXPECT_EQ(value_text(10.027746), "10.03");
}

TEST(EscapeHtml, EveryMarkupCharacter) {
  EXPECT_EQ(escape_html("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(escape_html("conv2d"), "conv2d");
}

TEST(LogBins, DecadeEdgesAndCounts) {
  const LogBins b = log_bins({0.0016, 0.009, 0.01, 0.034, 1.0, 5.0}, 4);
  // 0.0016 = 10^-2.80 lies in [10^-3, 10^-2.75); 5 = 10^0.70 in [10^0.5,
  // 10^0.75).
  EXPECT_EQ(b.first, -12);
  ASSERT_EQ(b.counts.size(), 15u);
  EXPECT_DOUBLE_EQ(b.lower(0), 1e-3);
  EXPECT_EQ(b.counts[0], 1);
  EXPECT_EQ(b.counts[4], 1);  // 0.01 starts the bin [10^-2, 10^-1.75)
  EXPECT_EQ(b.counts[12], 1); // 1.0 starts [10^0, 10^0.25)
  EXPECT_EQ(b.counts[14], 1);
  int64_t total = 0;
  for (int64_t c : b.counts)
    total += c;
  EXPECT_EQ(total, 6);
}

TEST(LogBins, EveryValueInItsBin) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> exponent(-5, 3);
  std::vector<double> values;
  for (int i = 0; i < 500; ++i)
    values.push_back(std::pow(10.0, exponent(rng)));
  const LogBins b = log_bins(values, 5);
  int64_t total = 0;
  for (int64_t c : b.counts)
    total += c;
  EXPECT_EQ(total, 500);
  for (double v : values) {
    const int i =
        static_cast<int>(std::floor(std::log10(v) * 5 + 1e-9)) - b.first;
    ASSERT_GE(i, 0);
    ASSERT_LT(i, static_cast<int>(b.counts.size()));
    EXPECT_LE(b.lower(i), v * (1 + 1e-9));
    EXPECT_LT(v, b.upper(i));
  }
}

TEST(LogBins, ZeroAndNothing) {
  EXPECT_TRUE(log_bins({}).counts.empty());
  const LogBins b = log_bins({0.0, 0.5});
  ASSERT_EQ(b.counts.size(), 1u);
  EXPECT_EQ(b.counts[0], 2); // a zero time counts in the first bin
}

TEST(SvgPlot, BarChartLinearAndLog) {
  const std::vector<Bar> bars = {
      {"graphs", 1000}, {"classes", 100}, {"rules", 10}};
  const std::string linear = bar_chart("Counts", bars);
  EXPECT_EQ(linear.rfind("<svg ", 0), 0u);
  EXPECT_EQ(count(linear, "<svg "), 1u);
  const std::vector<double> w = rect_widths(linear, "s0");
  ASSERT_EQ(w.size(), 3u);
  EXPECT_NEAR(w[1] / w[0], 0.1, 0.01);
  EXPECT_NEAR(w[2] / w[0], 0.01, 0.005);
  EXPECT_NE(linear.find(">1,000</text>"), std::string::npos);

  const std::vector<double> lw =
      rect_widths(bar_chart("Counts", bars, true), "s0");
  ASSERT_EQ(lw.size(), 3u);
  EXPECT_NEAR(lw[1] / lw[0], std::log10(101) / std::log10(1001), 0.01);
  EXPECT_GT(lw[2], 0.3 * lw[0]); // small counts stay visible
}

TEST(SvgPlot, GroupedBarsAndLegend) {
  const std::string svg =
      grouped_bar_chart("Before & after", {"before", "after"},
                        {{"cost", {6, 3}}, {"latency", {10, 5.5}}}, "ms");
  EXPECT_NE(svg.find("aria-label=\"Before &amp; after\""), std::string::npos);
  // One legend swatch and one bar per group for each series.
  const std::vector<double> before = rect_widths(svg, "s0");
  const std::vector<double> after = rect_widths(svg, "s1");
  ASSERT_EQ(before.size(), 3u);
  ASSERT_EQ(after.size(), 3u);
  EXPECT_NEAR(after[1] / before[1], 0.5, 0.01);
  EXPECT_NEAR(before[1] / before[2], 0.6, 0.01);
  EXPECT_NE(svg.find(">10 ms</text>"), std::string::npos);
  EXPECT_NE(svg.find(">5.50 ms</text>"), std::string::npos);
  EXPECT_NE(svg.find(">latency</text>"), std::string::npos);
}

TEST(SvgPlot, HistogramLabelsDecades) {
  const LogBins b = log_bins({0.002, 0.002, 0.03, 4.0}, 4);
  const std::string svg = histogram_chart("Proof time", b, "seconds <log>");
  EXPECT_EQ(count(svg, "<rect "), 3u); // only bins holding rules
  for (const char *label : {">10 ms<", ">100 ms<", ">1.00 s<", ">2<"})
    EXPECT_NE(svg.find(label), std::string::npos) << label;
  EXPECT_NE(svg.find(">seconds &lt;log&gt;</text>"), std::string::npos);
}

TEST(SvgPlot, LabelsAreEscaped) {
  const std::string svg = bar_chart("t", {{"<b>&\"", 1}});
  EXPECT_EQ(svg.find("<b>"), std::string::npos);
  EXPECT_NE(svg.find(">&lt;b&gt;&amp;&quot;</text>"), std::string::npos);
}

} // namespace
} // namespace quarry::report
