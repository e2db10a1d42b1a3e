//===- json_integer.h - Integers read from JSON, checked -------*- C++ -*-===//
//
// nlohmann::json's get<int>() converts whatever number it holds: a float
// such as 2.5e106 becomes an integer by a cast C++ leaves undefined, and a
// large integer is cut to fit. quarry's JSON readers (reports, manifests,
// checkpoints) take integers through json_integer instead, which accepts
// only an integer the target type holds and otherwise throws the library's
// own type_error, so each reader's handler names the file as before.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace quarry {

template <class T, class Json> T json_integer(const Json &j) {
  static_assert(std::is_integral_v<T>);
  if (j.is_number_unsigned()) {
    const auto v = j.template get<uint64_t>();
    if (std::in_range<T>(v))
      return static_cast<T>(v);
  } else if (j.is_number_integer()) {
    const auto v = j.template get<int64_t>();
    if (std::in_range<T>(v))
      return static_cast<T>(v);
  }
  throw nlohmann::json::type_error::create(
      302, "expected an integer in range, not " + j.dump(), &j);
}

/// An array of integers, each read with json_integer.
template <class T, class Json> std::vector<T> json_integers(const Json &j) {
  if (!j.is_array())
    throw nlohmann::json::type_error::create(
        302, "expected an array of integers, not " + j.dump(), &j);
  std::vector<T> out;
  for (const auto &e : j)
    out.push_back(json_integer<T>(e));
  return out;
}

} // namespace quarry
