//===- refused_shapes.cc - Matches refused for their shapes alone ---------===//
#include "quarry/rewrite/refused_shapes.h"

#include "quarry/core/hash.h"

#include <tbb/concurrent_unordered_set.h>

#include <atomic>

namespace quarry::rewrite {

struct RefusedShapes::Set {
  tbb::concurrent_unordered_set<uint64_t> keys;
  std::atomic<size_t> count{0};
};

RefusedShapes::RefusedShapes() : set_(std::make_unique<Set>()) {}
RefusedShapes::~RefusedShapes() = default;

bool RefusedShapes::contains(uint64_t key) const {
  return set_->keys.count(key) > 0;
}

void RefusedShapes::insert(uint64_t key) {
  if (set_->keys.insert(key).second)
    set_->count.fetch_add(1, std::memory_order_relaxed);
}

size_t RefusedShapes::bytes() const {
  // A node of the set's lists and a bucket, about.
  return set_->count.load(std::memory_order_relaxed) * 48;
}

uint64_t refusal_key(uint64_t pattern_key, const RewriteHost &host,
                     const MatchSite &site) {
  uint64_t key = hash_combine(0x7265667573, pattern_key);
  for (int32_t id = 0; id < site.pattern->num_nodes(); ++id)
    if (site.pattern->node(id).is_variable())
      key = hash_combine(key, site.values[id].node >= 0
                                  ? host.type_hash(site.values[id])
                                  : ~uint64_t{0});
  for (ValueRef r : site.outputs)
    key = hash_combine(key, host.type_hash(r));
  return key;
}

} // namespace quarry::rewrite
