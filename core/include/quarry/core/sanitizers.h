//===- sanitizers.h - Which sanitizer this code is built with --*- C++ -*-===//
//
// GCC says so with __SANITIZE_ADDRESS__ / __SANITIZE_THREAD__, clang with
// __has_feature; the few places that must act differently under a sanitizer
// (cmake/QuarrySanitizers.cmake) test these two macros instead.
//
//===----------------------------------------------------------------------===//
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define QUARRY_ADDRESS_SANITIZER 1
#endif
#if defined(__SANITIZE_THREAD__)
#define QUARRY_THREAD_SANITIZER 1
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer) && !defined(QUARRY_ADDRESS_SANITIZER)
#define QUARRY_ADDRESS_SANITIZER 1
#endif
#if __has_feature(thread_sanitizer) && !defined(QUARRY_THREAD_SANITIZER)
#define QUARRY_THREAD_SANITIZER 1
#endif
#endif
