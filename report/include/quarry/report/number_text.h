//===- number_text.h - Numbers as a person reads them ---------*- C++ -*-===//
//
// The text table, the page and the plots print counts, durations and
// ratios the same way, so a number looks alike wherever it appears.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>

namespace quarry::report {

/// 1460000 -> "1,460,000".
std::string count_text(int64_t n);

/// A duration in seconds, in the unit that suits it: "850 us", "9.11 ms",
/// "5.00 s", "3.2 min".
std::string seconds_text(double seconds);

/// Milliseconds with two decimals: "10.03 ms".
std::string ms_text(double ms);

/// A speed-up or other ratio: "1.34x".
std::string ratio_text(double ratio);

/// count_text for whole numbers, else two decimals ("10.03") or, below 1,
/// three significant digits ("0.0213").
std::string value_text(double v);

} // namespace quarry::report
