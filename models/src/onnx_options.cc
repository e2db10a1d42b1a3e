//===- onnx_options.cc - Import options from the command line -------------===//
#include "quarry/core/error.h"
#include "quarry/models/onnx.h"

#include <cctype>
#include <cstdlib>
#include <filesystem>

namespace quarry {

std::pair<std::string, TensorFile> parse_input_value(std::string_view text) {
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 >= text.size())
    throw Error("--input-value expects name=FILE (.pb or .npy) or "
                "name=NUMBER, got '" +
                std::string(text) + "'");
  const std::string value(text.substr(eq + 1));
  // A number is a scalar of the input's own element type (a sample rate).
  char *end = nullptr;
  const double number = std::strtod(value.c_str(), &end);
  if (end && *end == '\0' && !std::filesystem::exists(value)) {
    TensorFile scalar;
    scalar.value = Tensor<float>(Shape{}, static_cast<float>(number));
    return {std::string(text.substr(0, eq)), std::move(scalar)};
  }
  return {std::string(text.substr(0, eq)), read_tensor_file(value)};
}

std::pair<std::string, Shape> parse_input_shape(std::string_view text) {
  const size_t eq = text.find('=');
  const std::string bad = "--input-shape expects name=DxDx..., like "
                          "x=1x3x224x224, got '" +
                          std::string(text) + "'";
  if (eq == std::string_view::npos || eq == 0 || eq + 1 >= text.size())
    throw Error(bad);
  Shape s;
  std::string_view dims = text.substr(eq + 1);
  while (!dims.empty()) {
    const size_t x = dims.find('x');
    const std::string_view part = dims.substr(0, x);
    int64_t d = 0;
    for (char c : part) {
      if (!std::isdigit(static_cast<unsigned char>(c)) || d > (1LL << 40))
        throw Error(bad);
      d = d * 10 + (c - '0');
    }
    if (part.empty() || d < 1)
      throw Error(bad);
    s.dims.push_back(d);
    if (x == std::string_view::npos)
      break;
    dims = dims.substr(x + 1);
    if (dims.empty())
      throw Error(bad);
  }
  return {std::string(text.substr(0, eq)), s};
}

} // namespace quarry
