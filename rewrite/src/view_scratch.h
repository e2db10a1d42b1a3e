//===- view_scratch.h - A RewriteView's working memory (internal) -*- C++
//-*-===//
#pragma once

#include "quarry/rewrite/rewrite_view.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace quarry::rewrite {

struct ViewScratch::Data {
  /// Stamps: an entry is set for this view when it equals `epoch`.
  uint32_t epoch = 0;
  std::vector<uint32_t> dead, down, in_set, active, mod_at, uses_at, retyped_at;
  std::vector<int32_t> uses_delta, mod_slot;
  /// Downstream host nodes' types where a concat boundary they carry
  /// moved (walk_downstream()); only read where retyped_at is set.
  std::vector<std::vector<TensorType>> retyped;
  std::vector<uint64_t> down_hash;
  std::vector<uint8_t> down_static;
  std::vector<Node> modified;
  std::vector<int32_t> changed, stack, visited, woken;
  std::vector<bool> pat_live, made_static;
  /// Per pattern node: 0 not made, 1 being made, 2 made; then the cycle
  /// check's colours, likewise.
  std::vector<uint8_t> pat_mark, pat_colour;
  /// The cycle check's depth-first stack: (node, next operand).
  std::vector<std::pair<int32_t, int32_t>> walk;
  std::vector<Node> made;
  std::vector<uint64_t> made_hash;
  std::vector<ValueRef> targets;
  std::vector<int32_t> dying, redirected, static_changed;
  std::vector<TensorType> operand_types;

  void begin(int32_t n) {
    if (static_cast<int32_t>(dead.size()) < n) {
      for (auto *v :
           {&dead, &down, &in_set, &active, &mod_at, &uses_at, &retyped_at})
        v->assign(n, 0);
      retyped.assign(n, {});
      uses_delta.assign(n, 0);
      mod_slot.assign(n, 0);
      down_hash.assign(n, 0);
      down_static.assign(n, 0);
      epoch = 0;
    }
    if (++epoch == 0) { // wrapped: clear every stamp
      for (auto *v :
           {&dead, &down, &in_set, &active, &mod_at, &uses_at, &retyped_at})
        std::fill(v->begin(), v->end(), 0);
      epoch = 1;
    }
    modified.clear();
    changed.clear();
    targets.clear();
    dying.clear();
    redirected.clear();
    static_changed.clear();
  }
};

} // namespace quarry::rewrite
