//===- error_of.h - The message of an expected error ----------*- C++ -*-===//
//
// Error tests compare whole messages ("file:line:col: what"), so they want
// the text of the quarry::Error a call throws, and a clear stand-in when it
// throws none.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/error.h"

#include <string>

namespace quarry::testing {

/// what() of the quarry::Error that `f` throws, or "no error".
template <class F> std::string error_of(F &&f) {
  try {
    f();
  } catch (const Error &e) {
    return e.what();
  }
  return "no error";
}

} // namespace quarry::testing
