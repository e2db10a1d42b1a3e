//===- error.h - The one exception type quarry throws ---------*- C++ -*-===//
//
// Every user-facing failure (bad shapes, malformed text, corrupt files) is a
// quarry::Error whose what() is one line. Errors from a file carry its
// position so the message reads "file:line:col: what was expected".
//
//===----------------------------------------------------------------------===//
#pragma once

#include <stdexcept>
#include <string>

namespace quarry {

/// A position in a named input (a file, or "<string>" for text in memory).
/// line and column are 1-based; 0 means unknown.
struct SourcePos {
  std::string file;
  int line = 0;
  int column = 0;

  /// "file:line:col", omitting the parts that are unknown.
  std::string str() const;
};

/// A clear, one-line, user-facing error.
class Error : public std::runtime_error {
public:
  explicit Error(const std::string &message) : std::runtime_error(message) {}
  Error(const SourcePos &pos, const std::string &message)
      : std::runtime_error(pos.str() + ": " + message) {}
};

} // namespace quarry
