//===- json_field_test.cc - JSON files read with clear errors -------------===//
#include "quarry/core/json_field.h"

#include "quarry/testing/error_of.h"

#include <gtest/gtest.h>

namespace quarry {
namespace {

using testing::error_of;

TEST(JsonField, ErrorsNameTheFileAndTheField) {
  const std::string file = "f.json";
  const JsonField::Json j = JsonField::parse_text(
      R"({"n": 2.5, "big": 300, "kind": "blue", "list": [1]})", file);
  const JsonField f(j, file);
  EXPECT_EQ(error_of([&] { f["n"].integer(); }),
            "f.json: n: expected an integer");
  EXPECT_EQ(error_of([&] { f["big"].integer<uint8_t>(); }),
            "f.json: big: expected an integer in range, not 300");
  EXPECT_EQ(error_of([&] { f["none"]; }), "f.json: none: missing");
  EXPECT_EQ(error_of([&] { f["list"].at(1); }), "f.json: list[1]: missing");
  const auto colour = [](const std::string &s) {
    if (s != "red")
      throw Error("unknown colour '" + s + "'");
    return 1;
  };
  EXPECT_EQ(error_of([&] { f["kind"].parsed(colour); }),
            "f.json: kind: unknown colour 'blue'");
}

} // namespace
} // namespace quarry
