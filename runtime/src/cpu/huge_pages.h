//===- huge_pages.h - Memory a program reads every run ----------*- C++ -*-===//
//
// A program reads its activations and its laid-out weights on every run.
// In 4 KiB pages that costs a TLB miss every 4 KiB, and in a virtual
// machine each miss walks two levels of page tables; there the speed of one
// and the same convolution depended on where malloc had put its weights.
// Memory from here comes in 2 MiB-aligned blocks advised as transparent
// huge pages (the kernel's "madvise" mode gives them to such blocks only),
// so that a kernel's speed does not depend on the address its operands
// were given.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace quarry::runtime::cpu {

inline constexpr size_t kHugePage = size_t{2} << 20;

struct HugePagesFree {
  void operator()(std::byte *p) const;
};
using HugePagesBlock = std::unique_ptr<std::byte, HugePagesFree>;

/// At least `bytes`, rounded up to whole huge pages, 2 MiB-aligned and
/// advised as huge pages. Throws quarry::Error naming `what` when the
/// memory cannot be had.
HugePagesBlock huge_pages(size_t bytes, const char *what);

/// Memory for static operands laid out once for their kernels (weights),
/// handed out in pieces from huge-page blocks and alive as long as the
/// arena: a program's weights share blocks rather than each taking whole
/// huge pages of its own. Not thread-safe: a program is lowered on one
/// thread.
class StaticArena {
public:
  /// `bytes` (at least one) aligned to 64 bytes, a cache line: vector
  /// loads that straddle lines slow a stream of weights.
  void *allocate(size_t bytes);
  /// Bytes handed out so far, alignment included.
  size_t used() const { return used_; }

private:
  struct Block {
    HugePagesBlock memory;
    size_t size = 0, next = 0;
  };
  std::vector<Block> blocks_;
  size_t used_ = 0;
};

} // namespace quarry::runtime::cpu
