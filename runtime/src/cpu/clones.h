//===- clones.h - Loops built for each vector width -------------*- C++ -*-===//
#pragma once

#include "quarry/core/sanitizers.h"

// QUARRY_CPU_CLONES before a function builds it for AVX-512, AVX2 and
// plain x86-64; the loader picks what the CPU has. It picks through a
// resolver that runs before ThreadSanitizer's runtime is up; instrumented,
// that would crash the process at load, so a TSan build has the portable
// version only.
#ifdef QUARRY_THREAD_SANITIZER
#define QUARRY_CPU_CLONES
#else
#define QUARRY_CPU_CLONES                                                      \
  __attribute__((target_clones("avx512f", "avx2", "default")))
#endif
