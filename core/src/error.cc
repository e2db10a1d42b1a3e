//===- error.cc -----------------------------------------------------------===//
#include "quarry/core/error.h"

namespace quarry {

std::string SourcePos::str() const {
  std::string s = file.empty() ? "<input>" : file;
  if (line > 0) {
    s += ":" + std::to_string(line);
    if (column > 0)
      s += ":" + std::to_string(column);
  }
  return s;
}

std::string shortened_name(const std::string &name) {
  constexpr size_t kLongest = 80, kKept = 36;
  if (name.size() <= kLongest)
    return name;
  return name.substr(0, kKept) + "..." + name.substr(name.size() - kKept);
}

std::string one_line_message(const std::string &message) {
  std::string out;
  out.reserve(message.size());
  for (size_t i = 0; i < message.size();) {
    const char c = message[i];
    if (c == '\n' || c == '\r') {
      out += ' ';
      ++i;
      continue;
    }
    if (c != '\'') {
      out += c;
      ++i;
      continue;
    }
    // A quote: a name when a closing quote follows with no space between
    // (an apostrophe in prose, "quarry's", is followed by a space first).
    size_t end = i + 1;
    while (end < message.size() && message[end] != '\'' &&
           message[end] != ' ' && message[end] != '\n' &&
           message[end] != '\r' && message[end] != '\t')
      ++end;
    if (end < message.size() && message[end] == '\'') {
      out += "'" + shortened_name(message.substr(i + 1, end - i - 1)) + "'";
      i = end + 1;
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

} // namespace quarry
