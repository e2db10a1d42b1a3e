//===- onnx_restorable.cc - ONNX nodes written back as they were ----------===//
#include "onnx_restorable.h"

#include "quarry/core/hash.h"
#include "quarry/core/op_registry.h"

#include <map>
#include <string_view>
#include <utility>

namespace quarry::onnx_io {

int64_t values_hash(const Tensor<float> &t) {
  const std::string_view bits(reinterpret_cast<const char *>(t.data.data()),
                              t.data.size() * sizeof(float));
  return static_cast<int64_t>(hash_bytes(bits));
}

std::string value_ref(const Graph &g, ValueRef v) {
  const std::string &name = g.node(v.node).name;
  return name.empty() ? "" : name + ":" + std::to_string(v.output);
}

std::optional<GroupShape>
group_shape(const Graph &g, const std::vector<ValueRef> &results,
            const std::function<bool(int32_t)> &is_leaf) {
  GroupShape s;
  std::map<int32_t, size_t> line; // operator -> its line
  auto leaf = [&](int32_t id) {
    return g.node(id).is_variable() || is_leaf(id);
  };
  // Depth first from each result, an operator's line after its operands'
  // (a stack, not recursion: an unrolled recurrence is a long chain).
  std::vector<std::pair<int32_t, size_t>> stack;
  for (ValueRef r : results) {
    if (leaf(r.node) || line.count(r.node))
      continue;
    stack.emplace_back(r.node, 0);
    while (!stack.empty()) {
      auto &[id, next] = stack.back();
      const Node &n = g.node(id);
      if (next < n.inputs.size()) {
        const int32_t in = n.inputs[next++].node;
        if (!leaf(in) && !line.count(in))
          stack.emplace_back(in, 0);
        continue;
      }
      uint64_t h = 0;
      for (size_t a = 0; a < n.attrs.size(); ++a)
        h = hash_combine(h, hash_attr(n.attrs.value(a)));
      std::string text = std::string(op_name(n.kind)) + " " + hash_hex(h);
      for (ValueRef in : n.inputs) {
        if (auto l = line.find(in.node); l != line.end()) {
          text += " #" + std::to_string(l->second) + ":" +
                  std::to_string(in.output);
          continue;
        }
        const std::string ref = value_ref(g, in);
        if (ref.empty())
          return std::nullopt;
        text += " @" + ref;
        bool seen = false;
        for (ValueRef l : s.leaves)
          seen = seen || l == in;
        if (!seen)
          s.leaves.push_back(in);
      }
      line.emplace(id, s.nodes.size());
      s.nodes.push_back(id);
      s.text += text + "\n";
      stack.pop_back();
    }
  }
  return s;
}

} // namespace quarry::onnx_io
