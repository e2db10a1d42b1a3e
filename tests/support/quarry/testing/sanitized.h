//===- sanitized.h - Big tests skip under sanitizers ----------*- C++ -*-===//
//
// Under AddressSanitizer every allocation records a stack, so code that
// allocates in its inner loop (symbolic arithmetic, the search's graphs, Z3's
// callers) runs 20 to 40 times slower. A test whose point is its size (a
// whole network, a pack of a thousand rules, two runs compared at thread
// counts) and whose code smaller tests already run under the sanitizers
// skips there, so that the sanitized suite stays within CI's time; it still
// runs in every ordinary build.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/sanitizers.h"

#include <gtest/gtest.h>

#if defined(QUARRY_ADDRESS_SANITIZER) || defined(QUARRY_THREAD_SANITIZER)
#define QUARRY_SKIP_UNDER_SANITIZERS(why)                                      \
  GTEST_SKIP() << "too slow under a sanitizer, runs in the ordinary build: "   \
               << why
#else
#define QUARRY_SKIP_UNDER_SANITIZERS(why) static_cast<void>(0)
#endif
