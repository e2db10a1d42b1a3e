//===- axiom_lexer.h - Tokens of the axiom language -----------*- C++ -*-===//
//
// Private to the parser. Identifiers may carry an output suffix ("split.1");
// '#' starts a comment to the end of the line; newlines are whitespace.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/core/error.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace quarry::verify::detail {

struct Token {
  enum class Kind { Ident, Int, String, Punct, End };
  Kind kind = Kind::End;
  std::string text; ///< identifier, punctuation or string contents
  int64_t value = 0;
  SourcePos pos;

  bool is(std::string_view punct_or_word) const {
    return (kind == Kind::Punct || kind == Kind::Ident) &&
           text == punct_or_word;
  }
};

/// Splits `text` into tokens; throws quarry::Error at a bad character.
std::vector<Token> lex_axioms(std::string_view text, const std::string &file);

} // namespace quarry::verify::detail
