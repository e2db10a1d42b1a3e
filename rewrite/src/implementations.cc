//===- implementations.cc - How an operator runs, as a rewrite ------------===//
#include "quarry/rewrite/implementations.h"

namespace quarry::rewrite {

std::vector<OwnedSplice>
propose_implementations(const HostInfo &host, const ImplementationsFn &offers) {
  const Graph &g = *host.graph;
  std::vector<OwnedSplice> out;
  for (int32_t id = 0; id < g.num_nodes(); ++id) {
    const Node &n = g.node(id);
    if (n.is_variable() || host.is_static[id] || n.types.empty())
      continue;
    for (Attrs &way : offers(g, id)) {
      auto pat = std::make_shared<Graph>();
      std::vector<ValueRef> operands;
      Splice s{pat.get(), {}, {}, {}};
      for (size_t i = 0; i < n.inputs.size(); ++i) {
        const std::string name = "x" + std::to_string(i);
        operands.push_back(pat->input(name));
        s.bindings.emplace(name, n.inputs[i]);
      }
      const std::vector<ValueRef> results =
          pat->add(n.kind, std::move(way), operands);
      for (size_t i = 0; i < results.size(); ++i) {
        pat->mark_output(results[i]);
        s.replaced.push_back({id, static_cast<int32_t>(i)});
      }
      out.push_back({std::move(pat), std::move(s)});
    }
  }
  return out;
}

std::vector<std::string> chosen_implementations(const Graph &g) {
  std::vector<std::string> out;
  for (int32_t id = 0; id < g.num_nodes(); ++id) {
    const Node &n = g.node(id);
    if (n.kind != OpKind::Conv2D)
      continue;
    std::string ways;
    for (size_t a :
         {size_t{ops::Conv2D::kAlgorithm}, size_t{ops::Conv2D::kLayout}}) {
      if (!n.attrs.has(a))
        continue;
      const auto &spec = op_info(n.kind).attrs[a];
      ways += " " + std::string(spec.name) + "=" +
              format_attr(spec, n.attrs.value(a));
    }
    if (!ways.empty())
      out.push_back((n.name.empty() ? "#" + std::to_string(id) : n.name) +
                    ": conv2d" + ways);
  }
  return out;
}

} // namespace quarry::rewrite
