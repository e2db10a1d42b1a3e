//===- json_field.h - JSON files read with clear errors --------*- C++ -*-===//
//
// quarry's JSON files (manifests, reports, checkpoints) are written by one
// quarry command and read back by others, and by the command that wrote
// them when it resumes. A malformed file must give one line naming the
// file and what was wrong ("PATH:3:7: not valid JSON: ...", "PATH:
// totals.graphs: expected an integer"), never nlohmann's own text, so
// every access goes through a JsonField, which knows the file and the
// dotted path of the value it holds. Each format is read by the module
// that writes it, in the file that writes it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/error.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace quarry {

class JsonField {
public:
  /// Members keep the file's order (a manifest's totals are in pipeline
  /// order).
  using Json = nlohmann::ordered_json;

  /// Parses the file at `path`; throws quarry::Error "PATH:LINE:COL: ..."
  /// when it is not JSON, "PATH: ..." when it is not an object.
  static Json parse_file(const std::string &path);
  /// The same for `text` read from `file` (named in errors).
  static Json parse_text(const std::string &text, const std::string &file);

  JsonField(const Json &value, const std::string &file, std::string where = {})
      : value_(&value), file_(&file), where_(std::move(where)) {}

  /// The member `key` of this object; throws when it is absent.
  JsonField operator[](std::string_view key) const;
  /// Whether this object has a member `key`.
  bool has(std::string_view key) const;

  /// An integer that `T` holds (a float, or one out of range, fails).
  template <class T = int64_t> T integer() const {
    static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>);
    if (value_->is_number_unsigned()) {
      const auto v = value_->get<uint64_t>();
      if (std::in_range<T>(v))
        return static_cast<T>(v);
    } else if (value_->is_number_integer()) {
      const auto v = value_->get<int64_t>();
      if (std::in_range<T>(v))
        return static_cast<T>(v);
    } else {
      fail("expected an integer");
    }
    fail("expected an integer in range, not " + value_->dump());
  }
  /// `parse(text())`: a string naming something (an enumerator, a shard);
  /// a quarry::Error `parse` throws is reported at this field.
  template <class F> auto parsed(F &&parse) const {
    const std::string s = text();
    try {
      return parse(s);
    } catch (const Error &e) {
      fail(e.what());
    }
  }
  /// A hash written as hash_hex() writes it.
  uint64_t hash() const;
  double number() const;
  bool boolean() const;
  std::string text() const;
  /// Element `i` of this array; throws when it is shorter.
  JsonField at(size_t i) const;
  /// This array's strings.
  std::vector<std::string> texts() const;
  /// This array's integers, each as integer<T>() reads it.
  template <class T> std::vector<T> integers() const {
    std::vector<T> out;
    for_each([&](const JsonField &e) { out.push_back(e.integer<T>()); });
    return out;
  }
  /// Calls `f` with each element of this array, in order.
  void for_each(const std::function<void(const JsonField &)> &f) const;
  /// Calls `f(key, value)` with each member of this object, in order.
  void for_each_member(const std::function<void(const std::string &,
                                                const JsonField &)> &f) const;

  /// Throws unless this object's "format" member is `format`.
  void expect_format(std::string_view format) const;

  /// The value itself, for a reader that keeps it whole.
  const Json &json() const { return *value_; }

  /// A quarry::Error "FILE: WHERE: message".
  [[noreturn]] void fail(const std::string &message) const;

private:
  const Json *value_;
  const std::string *file_;
  std::string where_;
};

} // namespace quarry
