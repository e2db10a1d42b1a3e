//===- text_print.cc - Graph to text --------------------------------------===//
#include "quarry/core/text.h"

#include <cctype>
#include <set>
#include <sstream>

namespace quarry {

namespace {

bool is_identifier(std::string_view s) {
  if (s.empty() ||
      !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_'))
    return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
      return false;
  return !op_from_name(s) && s != "input" && s != "weight" && s != "output";
}

class Printer {
public:
  Printer(const Graph &g, const PrintOptions &opts)
      : g_(g), opts_(opts), uses_(g.use_counts()), names_(g.num_nodes()),
        inlined_(g.num_nodes(), false) {
    std::set<ValueRef> outputs(g.outputs().begin(), g.outputs().end());
    for (int32_t i = 0; i < g.num_nodes(); ++i) {
      const Node &n = g.node(i);
      if (n.is_variable()) {
        names_[i] = {n.name};
        taken_.insert(n.name);
      }
    }
    for (int32_t i = 0; i < g.num_nodes(); ++i) {
      const Node &n = g.node(i);
      if (n.is_variable())
        continue;
      inlined_[i] = opts.inline_single_use && n.num_outputs == 1 &&
                    uses_[i] == 1 && !outputs.count({i, 0});
      if (!inlined_[i])
        names_[i] = pick_names(n);
    }
  }

  std::string run() {
    for (int32_t i = 0; i < g_.num_nodes(); ++i) {
      const Node &n = g_.node(i);
      if (!n.is_variable())
        continue;
      os_ << op_name(n.kind) << " " << n.name;
      if (!n.types.empty())
        os_ << ": " << n.types[0].shape.str();
      os_ << "\n";
    }
    for (int32_t i = 0; i < g_.num_nodes(); ++i) {
      const Node &n = g_.node(i);
      if (n.is_variable() || inlined_[i])
        continue;
      for (size_t k = 0; k < names_[i].size(); ++k)
        os_ << (k ? ", " : "") << names_[i][k];
      os_ << " = ";
      expr(i);
      if (opts_.types && !n.types.empty()) {
        os_ << "  #";
        for (const auto &t : n.types)
          os_ << " " << t.shape.str();
      }
      os_ << "\n";
    }
    if (!g_.outputs().empty()) {
      os_ << "output ";
      for (size_t k = 0; k < g_.outputs().size(); ++k)
        os_ << (k ? ", " : "") << value(g_.outputs()[k]);
      os_ << "\n";
    }
    return os_.str();
  }

private:
  std::vector<std::string> pick_names(const Node &n) {
    // Keep the node's own names when they are valid and unique.
    std::vector<std::string> given;
    std::stringstream ss(n.name);
    for (std::string part; std::getline(ss, part, ',');)
      given.push_back(part);
    std::vector<std::string> out;
    for (int k = 0; k < n.num_outputs; ++k) {
      std::string name;
      if (given.size() == static_cast<size_t>(n.num_outputs) &&
          is_identifier(given[k]) && !taken_.count(given[k]))
        name = given[k];
      while (name.empty() || taken_.count(name))
        name = "t" + std::to_string(next_++);
      taken_.insert(name);
      out.push_back(name);
    }
    return out;
  }

  std::string value(ValueRef v) { return names_[v.node][v.output]; }

  void expr(int32_t id) {
    const Node &n = g_.node(id);
    const OpInfo &info = op_info(n.kind);
    os_ << info.name;
    std::string attrs;
    for (size_t a = 0; a < info.attrs.size(); ++a) {
      if (!n.attrs.has(a))
        continue;
      attrs += (attrs.empty() ? "" : " ") + std::string(info.attrs[a].name) +
               "=" + format_attr(info.attrs[a], n.attrs.value(a));
    }
    if (!attrs.empty())
      os_ << "[" << attrs << "]";
    os_ << "(";
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      os_ << (k ? ", " : "");
      if (inlined_[n.inputs[k].node])
        expr(n.inputs[k].node);
      else
        os_ << value(n.inputs[k]);
    }
    os_ << ")";
  }

  const Graph &g_;
  const PrintOptions &opts_;
  std::vector<int> uses_;
  std::vector<std::vector<std::string>> names_;
  std::vector<bool> inlined_;
  std::set<std::string> taken_;
  int next_ = 0;
  std::ostringstream os_;
};

} // namespace

std::string print_graph(const Graph &g, const PrintOptions &opts) {
  return Printer(g, opts).run();
}

} // namespace quarry
