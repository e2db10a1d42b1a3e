//===- attrs.h - Typed operator parameters ------------------*- C++ -*-===//
//
// Each operator declares an attribute schema: a fixed list of named, typed
// parameters with defaults. A node's Attrs hold one value per schema entry,
// in schema order, so ops read them by index with no lookups.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace quarry {

enum class AttrKind {
  Int,     ///< one integer
  IntList, ///< integers, written "1,1"
  Enum,    ///< one of named values, stored as its index
  Bool,    ///< 0 or 1
  Real,    ///< a double, e.g. an epsilon
};

/// A value that is absent (an optional attribute not given), an integer (Int,
/// Enum, Bool), a list of integers, or a real.
using AttrValue =
    std::variant<std::monostate, int64_t, std::vector<int64_t>, double>;

/// One schema entry.
struct AttrSpec {
  std::string_view name;
  AttrKind kind;
  AttrValue default_value; ///< monostate: optional, absent by default
  std::span<const std::string_view> enum_names = {};
  /// For IntList: exact length required, or -1 for any.
  int list_length = -1;
};

using AttrSchema = std::span<const AttrSpec>;

/// A node's parameter values, one per schema entry.
class Attrs {
public:
  Attrs() = default;
  explicit Attrs(std::vector<AttrValue> values) : values_(std::move(values)) {}

  /// The schema's defaults.
  static Attrs defaults(AttrSchema schema);

  size_t size() const { return values_.size(); }
  bool has(size_t i) const {
    return !std::holds_alternative<std::monostate>(values_[i]);
  }
  int64_t i(size_t idx) const { return std::get<int64_t>(values_[idx]); }
  const std::vector<int64_t> &list(size_t idx) const {
    return std::get<std::vector<int64_t>>(values_[idx]);
  }
  double real(size_t idx) const { return std::get<double>(values_[idx]); }
  const AttrValue &value(size_t idx) const { return values_[idx]; }
  void set(size_t idx, AttrValue v) { values_[idx] = std::move(v); }

  friend bool operator==(const Attrs &, const Attrs &) = default;

private:
  std::vector<AttrValue> values_;
};

/// Index of `name` in `schema`, or -1.
int find_attr(AttrSchema schema, std::string_view name);

/// Checks `value` against `spec` (kind, list length, enum range); throws
/// quarry::Error naming `op` and the attribute.
void check_attr(std::string_view op, const AttrSpec &spec,
                const AttrValue &value);

/// The value as text: "3", "1,1", "same", "1e-05"; "" when absent.
std::string format_attr(const AttrSpec &spec, const AttrValue &value);

/// A stable 64-bit hash of a value (hash.h): equal values hash alike.
uint64_t hash_attr(const AttrValue &v);

/// Parses the text form of a value for `spec`; throws quarry::Error with a
/// message (without position) on failure.
AttrValue parse_attr(std::string_view op, const AttrSpec &spec,
                     std::string_view text);

/// Shared enum vocabularies.
enum class Padding : int64_t { Same = 0, Valid = 1 };
enum class Activation : int64_t { None = 0, Relu = 1, Sigmoid = 2, Tanh = 3 };
inline constexpr std::string_view kPaddingNames[] = {"same", "valid"};
inline constexpr std::string_view kActivationNames[] = {"none", "relu",
                                                        "sigmoid", "tanh"};

} // namespace quarry
