//===- json_field.h - JSON result files with clear errors ---*- C++ -*-===//
//
// The stage files a run holds are written by other quarry commands; a
// report reads them as a consumer would. A malformed file must give one line
// naming the file and what was wrong ("PATH:3:7: not valid JSON: ...",
// "PATH: totals.graphs: expected an integer"), never nlohmann's own text, so
// every access goes through a JsonField, which knows the file and the
// dotted path of the value it holds.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace quarry::report {

class JsonField {
public:
  /// Parses the file at `path`; throws quarry::Error "PATH:LINE:COL: ..."
  /// when it is not JSON, "PATH: ..." when it is not an object.
  static nlohmann::json parse_file(const std::string &path);

  JsonField(const nlohmann::json &value, const std::string &file,
            std::string where = {})
      : value_(&value), file_(&file), where_(std::move(where)) {}

  /// The member `key` of this object; throws when it is absent.
  JsonField operator[](std::string_view key) const;
  /// Whether this object has a member `key`.
  bool has(std::string_view key) const;

  int64_t integer() const;
  double number() const;
  bool boolean() const;
  std::string text() const;
  /// Calls `f` with each element of this array, in order.
  void for_each(const std::function<void(const JsonField &)> &f) const;

  /// Throws unless this object's "format" member is `format`.
  void expect_format(std::string_view format) const;

  /// A quarry::Error "FILE: WHERE: message".
  [[noreturn]] void fail(const std::string &message) const;

private:
  const nlohmann::json *value_;
  const std::string *file_;
  std::string where_;
};

} // namespace quarry::report
