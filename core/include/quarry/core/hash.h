//===- hash.h - Small, fast, stable 64-bit hashing -------------*- C++ -*-===//
//
// Stable across runs and machines (no std::hash), so hashes can be stored
// and compared between ranks.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace quarry {

/// splitmix64's finalizer: a bijective mix of 64 bits.
constexpr uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

constexpr uint64_t hash_combine(uint64_t seed, uint64_t v) {
  return mix64(seed ^ (v + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2)));
}

/// FNV-1a over bytes, then mixed.
constexpr uint64_t hash_bytes(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return mix64(h);
}

/// A hash as files store it: 16 lower-case hexadecimal digits
/// (JsonField::hash() reads it back).
inline std::string hash_hex(uint64_t h) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016" PRIx64, h);
  return hex;
}

} // namespace quarry
