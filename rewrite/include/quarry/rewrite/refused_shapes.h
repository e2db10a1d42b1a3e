//===- refused_shapes.h - Matches refused for their shapes alone -*- C++
//-*-===//
//
// Whether a pattern's operators accept the types bound to its variables,
// and give the replaced values' types, depends on nothing else. The search
// meets the same refused match in every graph it expands, and most matches
// are refused: each refusal for shapes is remembered once, under a key of
// the pattern and the types, and looked up before the rewrite is viewed.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/rewrite/pattern_match.h"
#include "quarry/rewrite/rewrite_host.h"

#include <cstddef>
#include <cstdint>
#include <memory>

namespace quarry::rewrite {

/// Keys of refused matches. Safe from several threads.
class RefusedShapes {
public:
  RefusedShapes();
  ~RefusedShapes();
  bool contains(uint64_t key) const;
  void insert(uint64_t key);
  /// Bytes taken, about.
  size_t bytes() const;

private:
  struct Set;
  std::unique_ptr<Set> set_;
};

/// The key a rule's match is filed under: `pattern_key` (which names the
/// rule: its index, say), the types of the values bound to its variables
/// and of the values it replaces. `host` is made with Index::Search.
uint64_t refusal_key(uint64_t pattern_key, const RewriteHost &host,
                     const MatchSite &site);

} // namespace quarry::rewrite
