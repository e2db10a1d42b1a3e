//===- log_bins.h - Counting durations in log-spaced bins -----*- C++ -*-===//
//
// Proof times span four orders of magnitude (a millisecond for a rule that
// needs no axiom, the whole timeout for one that is refuted), so equal-width
// bins would put almost every rule in the first. Bins here are equal in
// log10: `per_decade` of them per factor of ten, their edges at
// 10^(k / per_decade), so decade edges (1 ms, 10 ms, 1 s) are always edges.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace quarry::report {

struct LogBins {
  int per_decade = 4;
  int first = 0; ///< edge k is 10^(k / per_decade), from k = first
  /// counts[i] values fall in [edge(first + i), edge(first + i + 1)).
  std::vector<int64_t> counts;

  double edge(int k) const;
  /// The lower edge of bin i and the upper edge of the last bin.
  double lower(size_t i) const { return edge(first + static_cast<int>(i)); }
  double upper(size_t i) const { return lower(i + 1); }
};

/// The smallest run of bins holding every value; values <= 0 (a clock too
/// coarse to see a proof) count in the first bin. No values: no bins.
LogBins log_bins(const std::vector<double> &values, int per_decade = 4);

} // namespace quarry::report
