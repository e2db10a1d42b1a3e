//===- json_field.cc - JSON files read with clear errors ------------------===//
#include "quarry/core/json_field.h"

#include "quarry/core/error.h"
#include "quarry/core/file_io.h"

#include <charconv>

namespace quarry {

namespace {

// nlohmann reports a byte offset (one past the offending character); people
// want a line and a column.
SourcePos position_of(const std::string &file, const std::string &text,
                      size_t byte) {
  SourcePos pos{file, 1, 1};
  const size_t end = std::min(byte > 0 ? byte - 1 : 0, text.size());
  for (size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++pos.line;
      pos.column = 1;
    } else {
      ++pos.column;
    }
  }
  return pos;
}

// "[json.exception.parse_error.101] parse error at line 1, column 2: syntax
// error while parsing value - invalid literal; last read: 'x'" -> the part
// after the position, which is all that is not said already.
std::string parse_message(const std::string &what) {
  const size_t colon = what.find(": ");
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

} // namespace

JsonField::Json JsonField::parse_file(const std::string &path) {
  return parse_text(read_file_bytes(path), path);
}

JsonField::Json JsonField::parse_text(const std::string &text,
                                      const std::string &path) {
  Json j;
  try {
    j = Json::parse(text);
  } catch (const Json::parse_error &e) {
    throw Error(position_of(path, text, e.byte),
                "not valid JSON: " + parse_message(e.what()));
  } catch (const Json::exception &e) {
    // A number too large for a double, and the like: "[json.exception.
    // out_of_range.406] number overflow parsing '1e3080'".
    const std::string what = e.what();
    const size_t tag_end = what.find("] ");
    throw Error(
        path + ": not valid JSON: " +
        (tag_end == std::string::npos ? what : what.substr(tag_end + 2)));
  }
  if (!j.is_object())
    throw Error(path + ": expected a JSON object");
  return j;
}

JsonField JsonField::operator[](std::string_view key) const {
  if (!value_->is_object())
    fail("expected an object");
  const auto it = value_->find(key);
  const std::string where =
      where_.empty() ? std::string(key) : where_ + "." + std::string(key);
  if (it == value_->end())
    JsonField(*value_, *file_, where).fail("missing");
  return JsonField(*it, *file_, where);
}

bool JsonField::has(std::string_view key) const {
  return value_->is_object() && value_->contains(key);
}

uint64_t JsonField::hash() const {
  const std::string hex = text();
  uint64_t v = 0;
  const auto [end, error] =
      std::from_chars(hex.data(), hex.data() + hex.size(), v, 16);
  if (error != std::errc() || end != hex.data() + hex.size() || hex.empty())
    fail("'" + hex + "' is not a hexadecimal hash");
  return v;
}

double JsonField::number() const {
  if (!value_->is_number())
    fail("expected a number");
  return value_->get<double>();
}

bool JsonField::boolean() const {
  if (!value_->is_boolean())
    fail("expected true or false");
  return value_->get<bool>();
}

std::string JsonField::text() const {
  if (!value_->is_string())
    fail("expected a string");
  return value_->get<std::string>();
}

JsonField JsonField::at(size_t i) const {
  if (!value_->is_array())
    fail("expected an array");
  const std::string where = where_ + "[" + std::to_string(i) + "]";
  if (i >= value_->size())
    JsonField(*value_, *file_, where).fail("missing");
  return JsonField((*value_)[i], *file_, where);
}

std::vector<std::string> JsonField::texts() const {
  std::vector<std::string> out;
  for_each([&](const JsonField &e) { out.push_back(e.text()); });
  return out;
}

void JsonField::for_each(
    const std::function<void(const JsonField &)> &f) const {
  if (!value_->is_array())
    fail("expected an array");
  for (size_t i = 0; i < value_->size(); ++i)
    f(JsonField((*value_)[i], *file_, where_ + "[" + std::to_string(i) + "]"));
}

void JsonField::for_each_member(
    const std::function<void(const std::string &, const JsonField &)> &f)
    const {
  if (!value_->is_object())
    fail("expected an object");
  for (const auto &[key, value] : value_->items())
    f(key, JsonField(value, *file_, where_.empty() ? key : where_ + "." + key));
}

void JsonField::expect_format(std::string_view format) const {
  if (!has("format") || !(*value_)["format"].is_string() ||
      (*value_)["format"].get<std::string>() != format)
    throw Error(*file_ + ": not a " + std::string(format) + " file");
}

void JsonField::fail(const std::string &message) const {
  throw Error(*file_ + ": " + (where_.empty() ? "" : where_ + ": ") + message);
}

} // namespace quarry
