//===- search_key.cc - The key the search tells graphs apart by -----------===//
#include "quarry/rewrite/search_key.h"

#include "linear_key.h"

namespace quarry::rewrite {

uint64_t search_key(const Graph &g) {
  std::vector<uint64_t> keys(g.num_nodes());
  const auto key_of = [&](int32_t id) { return keys[id]; };
  uint64_t variables = 0;
  for (int32_t i = 0; i < g.num_nodes(); ++i) {
    const Node &n = g.node(i);
    keys[i] = key::node_key(node_hash_seed(n), n.inputs, key_of);
    if (n.is_variable())
      variables ^= variable_hash(keys[i]);
  }
  return key::outputs_key(g.outputs().size(),
                          [&](size_t j) {
                            return key::value_key(keys[g.outputs()[j].node],
                                                  g.outputs()[j].output);
                          }) ^
         variables;
}

} // namespace quarry::rewrite
