//===- attrs.cc - Attribute checking, printing and parsing ----------------===//
#include "quarry/core/attrs.h"

#include "quarry/core/error.h"
#include "quarry/core/hash.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace quarry {

Attrs Attrs::defaults(AttrSchema schema) {
  std::vector<AttrValue> v;
  v.reserve(schema.size());
  for (const auto &spec : schema)
    v.push_back(spec.default_value);
  return Attrs(std::move(v));
}

int find_attr(AttrSchema schema, std::string_view name) {
  for (size_t i = 0; i < schema.size(); ++i)
    if (schema[i].name == name)
      return static_cast<int>(i);
  return -1;
}

namespace {
std::string where(std::string_view op, const AttrSpec &spec) {
  return std::string(op) + ": attribute " + std::string(spec.name);
}
} // namespace

void check_attr(std::string_view op, const AttrSpec &spec,
                const AttrValue &value) {
  if (std::holds_alternative<std::monostate>(value))
    return;
  switch (spec.kind) {
  case AttrKind::Int:
  case AttrKind::Enum:
  case AttrKind::Bool: {
    if (!std::holds_alternative<int64_t>(value))
      throw Error(where(op, spec) + " must be one integer");
    int64_t v = std::get<int64_t>(value);
    if (spec.kind == AttrKind::Enum &&
        (v < 0 || v >= static_cast<int64_t>(spec.enum_names.size())))
      throw Error(where(op, spec) + " value " + std::to_string(v) +
                  " out of range");
    if (spec.kind == AttrKind::Bool && v != 0 && v != 1)
      throw Error(where(op, spec) + " must be 0 or 1");
    return;
  }
  case AttrKind::IntList: {
    if (!std::holds_alternative<std::vector<int64_t>>(value))
      throw Error(where(op, spec) + " must be a list of integers");
    const auto &l = std::get<std::vector<int64_t>>(value);
    if (spec.list_length >= 0 &&
        l.size() != static_cast<size_t>(spec.list_length))
      throw Error(where(op, spec) + " needs " +
                  std::to_string(spec.list_length) + " values, got " +
                  std::to_string(l.size()));
    return;
  }
  case AttrKind::Real:
    if (!std::holds_alternative<double>(value))
      throw Error(where(op, spec) + " must be a real number");
    return;
  }
}

std::string format_attr(const AttrSpec &spec, const AttrValue &value) {
  if (std::holds_alternative<std::monostate>(value))
    return "";
  switch (spec.kind) {
  case AttrKind::Int:
  case AttrKind::Bool:
    return std::to_string(std::get<int64_t>(value));
  case AttrKind::Enum:
    return std::string(spec.enum_names[std::get<int64_t>(value)]);
  case AttrKind::IntList: {
    std::string s;
    for (int64_t v : std::get<std::vector<int64_t>>(value)) {
      if (!s.empty())
        s += ",";
      s += std::to_string(v);
    }
    return s;
  }
  case AttrKind::Real: {
    // Shortest text that reads back to the same double.
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, std::get<double>(value));
    return std::string(buf, r.ptr);
  }
  }
  return "";
}

namespace {
bool parse_int(std::string_view s, int64_t &out) {
  if (s.empty())
    return false;
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}
} // namespace

AttrValue parse_attr(std::string_view op, const AttrSpec &spec,
                     std::string_view text) {
  AttrValue v;
  switch (spec.kind) {
  case AttrKind::Enum: {
    for (size_t i = 0; i < spec.enum_names.size(); ++i)
      if (spec.enum_names[i] == text)
        return int64_t(i);
    std::string names;
    for (auto n : spec.enum_names)
      names += (names.empty() ? "" : "|") + std::string(n);
    throw Error(where(op, spec) + " expects " + names + ", got '" +
                std::string(text) + "'");
  }
  case AttrKind::Int:
  case AttrKind::Bool: {
    int64_t i;
    if (!parse_int(text, i))
      throw Error(where(op, spec) + " expects an integer, got '" +
                  std::string(text) + "'");
    v = i;
    break;
  }
  case AttrKind::IntList: {
    // Empty: the empty list, as format_attr writes it (a reshape to a
    // scalar's shape).
    std::vector<int64_t> l;
    size_t start = 0;
    while (!text.empty() && start <= text.size()) {
      size_t comma = text.find(',', start);
      if (comma == std::string_view::npos)
        comma = text.size();
      int64_t i;
      if (!parse_int(text.substr(start, comma - start), i))
        throw Error(where(op, spec) + " expects integers like 1,1, got '" +
                    std::string(text) + "'");
      l.push_back(i);
      start = comma + 1;
    }
    v = std::move(l);
    break;
  }
  case AttrKind::Real: {
    double d;
    auto r = std::from_chars(text.data(), text.data() + text.size(), d);
    // Infinities are values (a clip with no upper bound); NaN is not.
    if (r.ec != std::errc() || r.ptr != text.data() + text.size() ||
        std::isnan(d))
      throw Error(where(op, spec) + " expects a real number, got '" +
                  std::string(text) + "'");
    v = d;
    break;
  }
  }
  check_attr(op, spec, v);
  return v;
}

uint64_t hash_attr(const AttrValue &v) {
  uint64_t h = v.index();
  if (auto *i = std::get_if<int64_t>(&v))
    h = hash_combine(h, static_cast<uint64_t>(*i));
  else if (auto *l = std::get_if<std::vector<int64_t>>(&v))
    for (int64_t x : *l)
      h = hash_combine(h, static_cast<uint64_t>(x));
  else if (auto *d = std::get_if<double>(&v))
    h = hash_combine(h, std::bit_cast<uint64_t>(*d));
  return h;
}

} // namespace quarry
