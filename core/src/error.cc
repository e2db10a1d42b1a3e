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

} // namespace quarry
