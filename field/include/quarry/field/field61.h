//===- field61.h - Arithmetic modulo the Mersenne prime 2^61-1 -*- C++ -*-===//
//
// Written once for host and device: every function is QUARRY_HD, so CUDA
// kernels and host code compute bit-identical results. Elements are kept
// canonical in [0, p). No signed arithmetic, so no overflow UB.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define QUARRY_HD __host__ __device__ __forceinline__
#else
#define QUARRY_HD inline
#endif

namespace quarry::field61 {

inline constexpr uint64_t kP = (uint64_t{1} << 61) - 1;

/// Reduces x < 2^122 modulo p using 2^61 = 1 (mod p).
QUARRY_HD uint64_t reduce128(unsigned __int128 x) {
  uint64_t lo = static_cast<uint64_t>(x) & kP;
  uint64_t hi = static_cast<uint64_t>(x >> 61);
  uint64_t r = lo + hi; // < 2^62
  r = (r & kP) + (r >> 61);
  return r >= kP ? r - kP : r;
}

QUARRY_HD uint64_t reduce64(uint64_t x) {
  uint64_t r = (x & kP) + (x >> 61);
  return r >= kP ? r - kP : r;
}

QUARRY_HD uint64_t add(uint64_t a, uint64_t b) {
  uint64_t r = a + b; // < 2^62
  return r >= kP ? r - kP : r;
}

QUARRY_HD uint64_t sub(uint64_t a, uint64_t b) {
  return a >= b ? a - b : a + kP - b;
}

QUARRY_HD uint64_t mul(uint64_t a, uint64_t b) {
  return reduce128(static_cast<unsigned __int128>(a) * b);
}

QUARRY_HD uint64_t pow(uint64_t a, uint64_t e) {
  uint64_t r = 1;
  while (e) {
    if (e & 1)
      r = mul(r, a);
    a = mul(a, a);
    e >>= 1;
  }
  return r;
}

/// Multiplicative inverse (Fermat); a must be non-zero.
QUARRY_HD uint64_t inverse(uint64_t a) { return pow(a, kP - 2); }

/// The element for a signed integer.
QUARRY_HD uint64_t from_int(int64_t n) {
  return n >= 0 ? reduce64(static_cast<uint64_t>(n))
                : sub(0, reduce64(static_cast<uint64_t>(-(n + 1)) + 1));
}

/// A fixed pseudo-random function of (x, key), uniform on [0, p): used for
/// operations with no field counterpart (relu, sigmoid, ...).
QUARRY_HD uint64_t scramble(uint64_t x, uint64_t key) {
  uint64_t z = x + key * 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return reduce64(z);
}

} // namespace quarry::field61
