//===- number_text.cc - Numbers as a person reads them --------------------===//
#include "quarry/report/number_text.h"

#include <cmath>
#include <cstdio>

namespace quarry::report {

namespace {

std::string printf_text(const char *format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

} // namespace

std::string count_text(int64_t n) {
  const std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0)
      out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string seconds_text(double s) {
  if (s < 1e-3)
    return printf_text("%.0f us", s * 1e6);
  if (s < 1)
    return printf_text("%.3g ms", s * 1e3);
  if (s < 120)
    return printf_text("%.2f s", s);
  return printf_text("%.1f min", s / 60);
}

std::string ms_text(double ms) { return printf_text("%.2f ms", ms); }

std::string ratio_text(double ratio) { return printf_text("%.2fx", ratio); }

std::string value_text(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15)
    return count_text(static_cast<int64_t>(v));
  // Two decimals from 1 up, so 10.03 does not print as "10".
  return printf_text(std::fabs(v) >= 1 ? "%.2f" : "%.3g", v);
}

} // namespace quarry::report
