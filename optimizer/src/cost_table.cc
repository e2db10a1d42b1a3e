//===- cost_table.cc - Another machine's operator costs, for pricing ------===//
#include "quarry/optimizer/cost_table.h"

#include "quarry/core/error.h"
#include "quarry/core/flops.h"
#include "quarry/core/text.h"
#include "quarry/runtime/cost_cache.h"

#include <algorithm>
#include <filesystem>
#include <set>

namespace quarry::opt {

namespace {

constexpr std::string_view kColdWeights = " cold-weights";

/// The operand list of "op[attrs](x[1,2],w[3])" split at its top-level
/// commas: {"x[1,2]", "w[3]"}.
std::vector<std::string_view> operand_texts(std::string_view list) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i] == '[')
      ++depth;
    else if (list[i] == ']')
      --depth;
    else if (list[i] == ',' && depth == 0) {
      out.push_back(list.substr(start, i - start));
      start = i + 1;
    }
  }
  if (start < list.size())
    out.push_back(list.substr(start));
  return out;
}

/// Bytes a configuration moves at the least: every operand read once and
/// every result written once, floats.
double bytes_moved(const Graph &g, int32_t id) {
  int64_t elems = 0;
  for (ValueRef v : g.node(id).inputs)
    elems += g.type(v)->shape.numel();
  for (const TensorType &t : g.node(id).types)
    elems += t.shape.numel();
  return 4.0 * static_cast<double>(elems);
}

/// The operator node of a one-operator graph.
int32_t op_node(const Graph &g) {
  for (int32_t id = g.num_nodes() - 1; id >= 0; --id)
    if (!g.node(id).is_variable())
      return id;
  throw Error("cost table: a configuration without an operator");
}

} // namespace

bool parse_op_config(std::string_view key, runtime::OpConfig &c) {
  if (key.ends_with(kColdWeights))
    key.remove_suffix(kColdWeights.size());
  const size_t open = key.rfind('(');
  if (open == std::string_view::npos || !key.ends_with(")"))
    return false;
  const std::string_view head = key.substr(0, open);
  std::string text, args;
  int k = 0;
  for (std::string_view operand :
       operand_texts(key.substr(open + 1, key.size() - open - 2))) {
    if (operand.size() < 3 || (operand[0] != 'x' && operand[0] != 'w'))
      return false;
    const std::string name = "in" + std::to_string(k++);
    text += std::string(operand[0] == 'w' ? "weight " : "input ") + name +
            ": " + std::string(operand.substr(1)) + "\n";
    args += (args.empty() ? "" : ", ") + name;
  }
  // The text form binds every result of a node (a split's): the key does
  // not say how many there are, so the fewest that parse.
  constexpr int kMostResults = 16;
  std::string results = "y0";
  for (int r = 1; r <= kMostResults; ++r) {
    try {
      const Graph g = parse_graph(text + results + " = " + std::string(head) +
                                  "(" + args + ")\noutput y0\n");
      const Node &n = g.node(op_node(g));
      c = runtime::OpConfig{n.kind, n.attrs, {}, {}};
      for (ValueRef v : n.inputs) {
        c.inputs.push_back(g.type(v)->shape);
        c.weights.push_back(g.node(v.node).kind == OpKind::Weight);
      }
      return true;
    } catch (const Error &) {
      results += ", y" + std::to_string(r);
    }
  }
  return false;
}

CostTable::CostTable(const std::string &path, std::string_view backend,
                     const std::string &device)
    : path_(path), backend_(backend) {
  if (!std::filesystem::is_regular_file(path))
    throw Error(path + ": no such cost file");
  const runtime::CostCache file(path);
  std::set<std::string> devices;
  for (const auto &[key, ms] : file.records()) {
    const size_t a = key.find('\t'), b = key.find('\t', a + 1);
    if (a == std::string::npos || b == std::string::npos ||
        key.substr(0, a) != backend)
      continue;
    const std::string dev = key.substr(a + 1, b - a - 1);
    if (!device.empty() && dev != device)
      continue;
    devices.insert(dev);
    costs_[key.substr(b + 1)] = ms;
  }
  if (devices.empty())
    throw Error(path + ": no cost of backend " + std::string(backend) +
                (device.empty() ? "" : " on " + device));
  if (devices.size() > 1) {
    std::string names;
    for (const std::string &d : devices)
      names += (names.empty() ? "" : "; ") + d;
    throw Error(path + ": costs of several " + std::string(backend) +
                " devices (" + names + "): name one");
  }
  device_ = *devices.begin();

  fit();
}

void CostTable::fit() {
  struct Record {
    OpKind kind;
    double flops, bytes, ms;
  };
  std::vector<Record> records;
  roofline_.launch_ms = costs_.begin()->second;
  for (const auto &[config, ms] : costs_) {
    roofline_.launch_ms = std::min(roofline_.launch_ms, ms);
    runtime::OpConfig c;
    if (!parse_op_config(config, c) || ms <= 0)
      continue;
    try {
      const Graph g = runtime::single_op_graph(c);
      const int32_t id = op_node(g);
      records.push_back({c.kind, static_cast<double>(node_flops(g, id)),
                         bytes_moved(g, id), ms});
    } catch (const Error &) {
      // A configuration this build cannot type: it fits nothing.
    }
  }
  for (const Record &r : records) {
    roofline_.flops_per_ms = std::max(roofline_.flops_per_ms, r.flops / r.ms);
    roofline_.bytes_per_ms = std::max(roofline_.bytes_per_ms, r.bytes / r.ms);
  }
  roofline_.fitted_records = static_cast<int>(records.size());
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 1.0 : v[v.size() / 2];
  };
  std::map<OpKind, std::vector<double>> by_kind;
  std::vector<double> all;
  for (const Record &r : records) {
    const double k = r.ms / roofline_.bound(r.flops, r.bytes);
    by_kind[r.kind].push_back(k);
    all.push_back(k);
  }
  for (auto &[kind, ks] : by_kind)
    roofline_.shortfall[kind] = median(ks);
  roofline_.shortfall_all = median(all);
}

double CostTable::Roofline::bound(double flops, double bytes) const {
  double ms = bytes_per_ms > 0 ? bytes / bytes_per_ms : 0;
  if (flops_per_ms > 0)
    ms = std::max(ms, flops / flops_per_ms);
  return launch_ms + ms;
}

double CostTable::price(const Roofline &r, const runtime::OpConfig &c) {
  const Graph g = runtime::single_op_graph(c);
  const int32_t id = op_node(g);
  const auto k = r.shortfall.find(c.kind);
  return (k != r.shortfall.end() ? k->second : r.shortfall_all) *
         r.bound(static_cast<double>(node_flops(g, id)), bytes_moved(g, id));
}

double CostTable::cost(const runtime::OpConfig &c) {
  const std::string key = c.key();
  if (auto it = asked_.find(key); it != asked_.end())
    return it->second;
  double ms = 0;
  auto it = costs_.find(key);
  if (it == costs_.end())
    it = costs_.find(key + std::string(kColdWeights));
  if (it != costs_.end()) {
    ms = it->second;
    ++found_;
  } else {
    ms = price(roofline_, c);
    ++priced_;
  }
  asked_.emplace(key, ms);
  return ms;
}

} // namespace quarry::opt
