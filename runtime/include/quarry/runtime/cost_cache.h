//===- cost_cache.h - Measured operator costs, kept in a file --*- C++ -*-===//
//
// So the optimizer measures each operator configuration once per machine,
// costs are stored in a text file, one record per line:
//
//   q1 <TAB> backend <TAB> device <TAB> op config key <TAB> ms <TAB> check
//
// where `check` is 16 hex digits of a hash of everything before it. Records
// are only ever appended, each with one write() under an exclusive flock(),
// so concurrent writers (threads or processes) lose nothing; a later record
// for the same key wins. A record whose check fails (a torn or edited line)
// is skipped with a warning, and the file is rewritten without it, under
// the same lock.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/runtime/backend.h"
#include "quarry/runtime/measure.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace quarry::runtime {

class CostCache {
public:
  /// Reads `path` (creating it and its folder if absent).
  explicit CostCache(std::string path);

  /// The key of one configuration on one backend and device; measured
  /// with its weights in memory (MeasureOptions::cold_weights), the
  /// configuration's text ends in " cold-weights".
  static std::string key(std::string_view backend, std::string_view device,
                         const OpConfig &c, bool cold_weights = false);

  std::optional<double> find(const std::string &key) const;
  /// Records the cost in memory and appends it to the file.
  void insert(const std::string &key, double ms);

  /// "FILE:LINE: ..." for every record skipped while reading.
  const std::vector<std::string> &warnings() const { return warnings_; }
  /// Measurements not stored because the machine was busy (cached_measure).
  int unsteady() const { return unsteady_; }
  void count_unsteady() { ++unsteady_; }
  const std::string &path() const { return path_; }
  size_t size() const { return costs_.size(); }
  /// Every cost read or recorded, by key (backend, device and configuration
  /// separated by tabs, as key() makes them).
  const std::map<std::string, double, std::less<>> &records() const {
    return costs_;
  }

private:
  std::string path_;
  std::map<std::string, double, std::less<>> costs_;
  std::vector<std::string> warnings_;
  int unsteady_ = 0;
};

/// The cost of `c` on `b`: from the cache when known, else measured and
/// stored. A measurement is stored only when the machine was steady: its
/// runs agreed (OpCost::steady), and the canary, timed just before and
/// just after it, ran within 1.25 times the fastest the cache has seen for
/// it. A spell that slows every run alike (on a 2-core machine, one core
/// taken for seconds makes a 2-thread kernel take twice as long, run after
/// run) shows only in the canary. A disturbed measurement is taken again
/// after a pause, up to opts.attempts times; after that the fastest is
/// returned but not stored (CostCache::unsteady). `measured`, when given,
/// says whether it was measured.
double cached_measure(CostCache &cache, Backend &b, const OpConfig &c,
                      const MeasureOptions &opts, bool *measured = nullptr);

/// The fixed work cached_measure times around each measurement: a product
/// of two 256 x 256 matrices (0.15 ms on the cpu backend at two threads).
/// Its fastest time is kept in the cache as the record of this
/// configuration; a cache with none takes the fastest of ten, 200 ms
/// apart, so that a slow spell does not become the baseline.
const OpConfig &canary_config();

} // namespace quarry::runtime
