//===- log_bins.cc - Counting durations in log-spaced bins ----------------===//
#include "quarry/report/log_bins.h"

#include <algorithm>
#include <cmath>

namespace quarry::report {

double LogBins::edge(int k) const {
  return std::pow(10.0, static_cast<double>(k) / per_decade);
}

LogBins log_bins(const std::vector<double> &values, int per_decade) {
  LogBins b;
  b.per_decade = per_decade;
  std::vector<int> index;
  for (double v : values)
    if (v > 0) {
      // A small tolerance keeps 0.01 in the bin starting at 10^-2 even
      // though log10(0.01) * 4 may come out as -8.0000000001.
      index.push_back(
          static_cast<int>(std::floor(std::log10(v) * per_decade + 1e-9)));
    }
  if (index.empty() && values.empty())
    return b;
  const auto [lo, hi] = std::minmax_element(index.begin(), index.end());
  b.first = index.empty() ? 0 : *lo;
  const int last = index.empty() ? 0 : *hi;
  b.counts.assign(last - b.first + 1, 0);
  for (int k : index)
    ++b.counts[k - b.first];
  b.counts[0] += static_cast<int64_t>(values.size() - index.size());
  return b;
}

} // namespace quarry::report
