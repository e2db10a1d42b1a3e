//===- fork_join.h - Parallel loops the race detector sees -*- C++ -*-===//
//
// ThreadSanitizer sees synchronization only in instrumented code, and
// Debian's oneTBB is not instrumented: without being told, it takes every
// value a task writes and the caller reads after the loop (or the caller
// writes and a task reads) for a race. A ForkJoin states the two edges a
// parallel loop guarantees:
//
//   const ForkJoin edges;                                    // fork
//   tbb::parallel_for(0, n, edges.task([&](size_t i) { ... }));
//   edges.joined();                                          // join
//
// so what the detector still reports is a race between tasks. Outside
// ThreadSanitizer builds every call is empty.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/sanitizers.h"

#include <utility>

#ifdef QUARRY_THREAD_SANITIZER
extern "C" void __tsan_acquire(void *addr);
extern "C" void __tsan_release(void *addr);
#endif

namespace quarry {

class ForkJoin {
public:
  /// The fork: what the caller did so far happens before every task.
  ForkJoin() { release(); }
  ForkJoin(const ForkJoin &) = delete;
  ForkJoin &operator=(const ForkJoin &) = delete;

  /// `body` (of one argument: an index, a range or an item) as a task of
  /// the loop: it starts after the fork, and the join comes after it ends.
  /// One argument exactly, so that tbb::parallel_for_each does not take it
  /// for a body that wants a feeder.
  template <class Body> auto task(Body body) const {
    return [this, body](auto &&arg) {
      acquire();
      body(std::forward<decltype(arg)>(arg));
      release();
    };
  }

  /// The join, once the loop has returned: every task happened before what
  /// the caller does next.
  void joined() const { acquire(); }

private:
  void acquire() const {
#ifdef QUARRY_THREAD_SANITIZER
    __tsan_acquire(const_cast<ForkJoin *>(this));
#endif
  }
  void release() const {
#ifdef QUARRY_THREAD_SANITIZER
    __tsan_release(const_cast<ForkJoin *>(this));
#endif
  }
};

} // namespace quarry
