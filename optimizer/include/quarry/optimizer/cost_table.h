//===- cost_table.h - Another machine's operator costs, for pricing -*- C++
//-*-===//
//
// A search for a device this machine lacks (a GPU, on a laptop) prices its
// graphs from the cost file a run on that device wrote (runtime/cost_cache.h)
// instead of measuring. A configuration the file lacks is priced by a
// roofline fitted to the file's own records:
//
//   ms = k(op) * (launch + max(flops / F, bytes / B))
//
// where `launch` is the cheapest record's time, F the highest arithmetic
// rate and B the highest rate of bytes moved (every operand read once, every
// result written once) that any record reached, and k(op) the median, over
// the file's records of the same operator, of measured time over that
// bound (over all records for an operator the file lacks): kernels of one
// operator tend to fall short of the ceilings alike. How many
// configurations were priced so is counted and reported, so a search that
// leaned on the model says so.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/runtime/op_config.h"

#include <map>
#include <string>
#include <string_view>

namespace quarry::opt {

class CostTable {
public:
  /// Reads `path`'s records of `backend`. They must be of one device, or
  /// `device` names which. Throws quarry::Error naming the file when it is
  /// missing, holds no record of that backend (and device), or holds
  /// several devices and none is named.
  CostTable(const std::string &path, std::string_view backend,
            const std::string &device = "");

  /// The configuration's cost: the file's record, else the roofline's.
  double cost(const runtime::OpConfig &c);

  struct Roofline {
    double launch_ms = 0;
    double flops_per_ms = 0; ///< 0: no record did arithmetic
    double bytes_per_ms = 0;
    std::map<OpKind, double> shortfall; ///< k(op): measured over the bound
    double shortfall_all = 1;           ///< k of an operator not recorded
    int fitted_records = 0; ///< records whose configuration could be read
    /// launch + max(flops / F, bytes / B), before k.
    double bound(double flops, double bytes) const;
  };
  /// The model of configurations the file lacks.
  const Roofline &roofline() const { return roofline_; }
  static double price(const Roofline &r, const runtime::OpConfig &c);

  const std::string &device() const { return device_; }
  size_t records() const { return costs_.size(); }
  /// Distinct configurations asked for, found in the file and priced by
  /// the roofline.
  int found() const { return found_; }
  int priced() const { return priced_; }

private:
  void fit();

  std::string path_, backend_, device_;
  std::map<std::string, double, std::less<>> costs_; ///< by configuration
  std::map<std::string, double, std::less<>> asked_; ///< memo of cost()
  Roofline roofline_;
  int found_ = 0, priced_ = 0;
};

/// The one-operator configuration a cost file's configuration text
/// (OpConfig::key) describes, or false when it cannot be read back.
bool parse_op_config(std::string_view key, runtime::OpConfig &c);

} // namespace quarry::opt
