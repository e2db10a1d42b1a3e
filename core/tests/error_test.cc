//===- error_test.cc - Errors are one line, their names kept short --------===//
#include "quarry/core/error.h"

#include <gtest/gtest.h>

namespace quarry {
namespace {

TEST(Error, LongQuotedNamesKeepTheirTwoEnds) {
  const std::string name =
      std::string(40, 'a') + std::string(200, 'b') + std::string(40, 'c');
  const Error e(SourcePos{"m.onnx", 0, 0},
                "node 'n' (Relu): uses '" + name + "', which nothing defines");
  EXPECT_EQ(std::string(e.what()),
            "m.onnx: node 'n' (Relu): uses '" + std::string(36, 'a') + "..." +
                std::string(36, 'c') + "', which nothing defines");
}

TEST(Error, ProseApostrophesAndShortNamesAreLeftAlone) {
  const std::string text = "quarry's kernel for 'x' and the model's input '" +
                           std::string(80, 'y') +
                           "' (not shortened: 80 characters)";
  EXPECT_EQ(std::string(Error(text).what()), text);
  // A name with a space is prose, whatever its length.
  const std::string spaced =
      "'" + std::string(60, 'p') + " " + std::string(60, 'q') + "'";
  EXPECT_EQ(std::string(Error(spaced).what()), spaced);
}

TEST(Error, LineBreaksBecomeSpaces) {
  EXPECT_EQ(std::string(Error("first\nsecond\r\nthird").what()),
            "first second  third");
}

TEST(Error, ShortenedNameKeepsEightyCharacters) {
  EXPECT_EQ(shortened_name(std::string(80, 'z')), std::string(80, 'z'));
  EXPECT_EQ(shortened_name(std::string(81, 'z')).size(), 36u + 3 + 36);
}

} // namespace
} // namespace quarry
