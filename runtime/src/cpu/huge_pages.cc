//===- huge_pages.cc - Memory a program reads every run -------------------===//
#include "huge_pages.h"

#include "quarry/core/error.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <string>

namespace quarry::runtime::cpu {

namespace {

/// Blocks of static memory are at least this big, so that small weights
/// share huge pages; a larger piece gets a block of its own size.
constexpr size_t kStaticBlock = 4 * kHugePage;
constexpr size_t kLine = 64;

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

} // namespace

void HugePagesFree::operator()(std::byte *p) const { std::free(p); }

HugePagesBlock huge_pages(size_t bytes, const char *what) {
  const size_t total = round_up(std::max<size_t>(bytes, 1), kHugePage);
  auto *p = static_cast<std::byte *>(std::aligned_alloc(kHugePage, total));
  if (!p)
    throw Error("backend cpu: out of memory for " + std::to_string(total) +
                " bytes of " + what);
  madvise(p, total, MADV_HUGEPAGE); // advice: failure changes nothing
  return HugePagesBlock(p);
}

void *StaticArena::allocate(size_t bytes) {
  const size_t size = round_up(std::max<size_t>(bytes, 1), kLine);
  // First fit: the tail of a block a large piece took is used too.
  auto fits = std::find_if(blocks_.begin(), blocks_.end(), [&](const Block &b) {
    return b.size - b.next >= size;
  });
  if (fits == blocks_.end()) {
    const size_t block = round_up(std::max(size, kStaticBlock), kHugePage);
    blocks_.push_back({huge_pages(block, "static operands"), block, 0});
    fits = blocks_.end() - 1;
  }
  Block &b = *fits;
  void *p = b.memory.get() + b.next;
  b.next += size;
  used_ += size;
  return p;
}

} // namespace quarry::runtime::cpu
