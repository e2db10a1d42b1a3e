//===- denormals.cc - Denormal floats taken as zero during a run ----------===//
#include "denormals.h"

#include <omp.h>

#include <algorithm>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define QUARRY_HAVE_MXCSR 1
#endif

namespace quarry::runtime::cpu {
namespace {

#ifdef QUARRY_HAVE_MXCSR
/// MXCSR's flush-to-zero (results) and denormals-are-zero (operands) bits.
constexpr unsigned kAsZero = 0x8040;

unsigned mode() { return _mm_getcsr(); }
void set_mode(unsigned m) { _mm_setcsr(m); }
void set_as_zero(bool as_zero) {
  set_mode(as_zero ? mode() | kAsZero : mode() & ~kAsZero);
}
#else
unsigned mode() { return 0; }
void set_mode(unsigned) {}
void set_as_zero(bool) {}
#endif

/// What this calling thread's OpenMP pool was last set to: the mode, and
/// how many threads of the pool were. Workers start as the process does
/// (denormals kept).
struct Workers {
  bool as_zero = false;
  int threads = 1;
};
thread_local Workers workers;

} // namespace

bool denormals_as_zero_supported() {
#ifdef QUARRY_HAVE_MXCSR
  return true;
#else
  return false;
#endif
}

bool denormals_as_zero_now() {
#ifdef QUARRY_HAVE_MXCSR
  return (mode() & kAsZero) == kAsZero;
#else
  return false;
#endif
}

DenormalsAsZero::DenormalsAsZero(bool as_zero, int threads) : saved_(mode()) {
  set_as_zero(as_zero);
  if (!denormals_as_zero_supported() || threads <= 1 ||
      (workers.as_zero == as_zero && workers.threads >= threads))
    return;
  // A pool that has run more threads than this scope's keeps them: set
  // them all, so that a later, larger team finds none in the other mode.
  const int team = std::max(threads, workers.threads);
#pragma omp parallel num_threads(team)
  set_as_zero(as_zero);
  workers = {as_zero, team};
}

DenormalsAsZero::~DenormalsAsZero() { set_mode(saved_); }

} // namespace quarry::runtime::cpu
