//===- onnx_names.h - ONNX's spelling of quarry's function names -*- C++
//-*-===//
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace quarry::onnx_io {

/// ONNX's name for a function quarry spells in snake case: leaky_relu is
/// LeakyRelu, sum_square (of a reduction) SumSquare.
inline std::string onnx_name(std::string_view snake) {
  std::string name;
  bool upper = true;
  for (char c : snake) {
    if (c == '_') {
      upper = true;
      continue;
    }
    name += upper
                ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
                : c;
    upper = false;
  }
  return name;
}

} // namespace quarry::onnx_io
