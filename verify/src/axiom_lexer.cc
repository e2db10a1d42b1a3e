//===- axiom_lexer.cc - Tokens of the axiom language ----------------------===//
#include "axiom_lexer.h"

#include <cctype>
#include <limits>

namespace quarry::verify::detail {

namespace {

bool ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
bool digit(char c) { return std::isdigit(static_cast<unsigned char>(c)); }

} // namespace

std::vector<Token> lex_axioms(std::string_view text, const std::string &file) {
  std::vector<Token> out;
  size_t i = 0;
  int line = 1, col = 1;
  auto advance = [&](size_t n) {
    for (size_t k = 0; k < n; ++k, ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
  };
  while (i < text.size()) {
    const char c = text[i];
    if (c == '#') {
      while (i < text.size() && text[i] != '\n')
        advance(1);
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      advance(1);
      continue;
    }
    Token t;
    t.pos = {file, line, col};
    size_t n = 1;
    if (ident_start(c)) {
      t.kind = Token::Kind::Ident;
      while (i + n < text.size() && ident_char(text[i + n]))
        ++n;
      // An output suffix: "split.1" (a '.' directly followed by a digit).
      if (i + n + 1 < text.size() && text[i + n] == '.' &&
          digit(text[i + n + 1])) {
        ++n;
        while (i + n < text.size() && digit(text[i + n]))
          ++n;
      }
      t.text = std::string(text.substr(i, n));
    } else if (digit(c)) {
      t.kind = Token::Kind::Int;
      while (i + n < text.size() && digit(text[i + n]))
        ++n;
      t.text = std::string(text.substr(i, n));
      if (n > 15)
        throw Error(t.pos, "integer " + t.text + " is too large");
      t.value = std::stoll(t.text);
    } else if (c == '"') {
      t.kind = Token::Kind::String;
      while (i + n < text.size() && text[i + n] != '"' && text[i + n] != '\n')
        ++n;
      if (i + n >= text.size() || text[i + n] != '"')
        throw Error(t.pos, "expected a closing '\"'");
      t.text = std::string(text.substr(i + 1, n - 1));
      ++n;
    } else {
      static constexpr std::string_view two[] = {"!=", "<=", ">=", "..", "->"};
      t.kind = Token::Kind::Punct;
      for (std::string_view p : two)
        if (text.substr(i, 2) == p)
          n = 2;
      if (n == 1 && std::string_view("()[]{},:.=<>+-*/%;").find(c) ==
                        std::string_view::npos)
        throw Error(t.pos, std::string("unexpected character '") + c + "'");
      t.text = std::string(text.substr(i, n));
    }
    advance(n);
    out.push_back(std::move(t));
  }
  Token end;
  end.pos = {file, line, col};
  out.push_back(end);
  return out;
}

} // namespace quarry::verify::detail
