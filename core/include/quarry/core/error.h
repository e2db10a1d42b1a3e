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

/// `name` as a message shows it: past 80 characters, its first and last
/// 36 around "..." (a generated name can run to thousands).
std::string shortened_name(const std::string &name);

/// `message` on one line (line breaks as spaces) with every quoted name
/// ('...' without spaces) shortened_name'd.
std::string one_line_message(const std::string &message);

/// A clear, one-line, user-facing error.
class Error : public std::runtime_error {
public:
  explicit Error(const std::string &message)
      : std::runtime_error(one_line_message(message)) {}
  Error(const SourcePos &pos, const std::string &message)
      : std::runtime_error(pos.str() + ": " + one_line_message(message)) {}
};

} // namespace quarry
