//===- text_parse.cc - Text to graph --------------------------------------===//
//
// A hand-written recursive-descent parser over characters, tracking line and
// column so every error names its position.
//
//===----------------------------------------------------------------------===//
#include "quarry/core/text.h"

#include "quarry/core/file_io.h"

#include <cctype>
#include <map>

namespace quarry {

namespace {

class Parser {
public:
  Parser(std::string_view text, std::string_view file)
      : text_(text), file_(file) {}

  Graph run() {
    while (true) {
      skip_blank_lines();
      if (at_end())
        break;
      statement();
      skip_space();
      if (!at_end() && peek() != '\n')
        error("expected end of line");
    }
    return std::move(g_);
  }

private:
  // --- characters -------------------------------------------------------
  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }
  char next() {
    char c = text_[pos_++];
    if (c == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    return c;
  }
  SourcePos here() const { return {std::string(file_), line_, col_}; }

  [[noreturn]] void error(const std::string &msg) const {
    throw Error(here(), msg);
  }
  [[noreturn]] void error_at(const SourcePos &p, const std::string &msg) const {
    throw Error(p, msg);
  }

  /// Skips spaces and comments; newlines too while inside brackets.
  void skip_space() {
    while (!at_end()) {
      char c = peek();
      if (c == '#') {
        while (!at_end() && peek() != '\n')
          next();
      } else if (c == ' ' || c == '\t' || c == '\r' ||
                 (c == '\n' && depth_ > 0)) {
        next();
      } else {
        break;
      }
    }
  }
  void skip_blank_lines() {
    while (true) {
      skip_space();
      if (peek() != '\n')
        return;
      next();
    }
  }
  bool accept(char c) {
    skip_space();
    if (peek() != c)
      return false;
    next();
    return true;
  }
  void expect(char c, const std::string &context) {
    if (!accept(c))
      error(std::string("expected '") + c + "' " + context + describe_here());
  }
  std::string describe_here() const {
    if (at_end())
      return ", found end of input";
    if (peek() == '\n')
      return ", found end of line";
    return std::string(", found '") + peek() + "'";
  }

  static bool ident_start(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
  }
  static bool ident_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  }
  std::string identifier(const std::string &what) {
    skip_space();
    if (!ident_start(peek()))
      error("expected " + what + describe_here());
    std::string s;
    while (!at_end() && ident_char(peek()))
      s += next();
    return s;
  }
  int64_t integer(const std::string &what) {
    skip_space();
    std::string s;
    if (peek() == '-')
      s += next();
    while (!at_end() && std::isdigit(static_cast<unsigned char>(peek())))
      s += next();
    if (s.empty() || s == "-")
      error("expected " + what + describe_here());
    try {
      return std::stoll(s);
    } catch (const std::out_of_range &) {
      error(what + " out of range");
    }
  }

  // --- grammar ------------------------------------------------------------
  void statement() {
    const SourcePos start = here();
    std::string first =
        identifier("a statement (input, weight, output or a binding)");
    skip_space();
    if ((first == "input" || first == "weight") && ident_start(peek()))
      return variable(first == "weight", start);
    if (first == "output" && ident_start(peek()))
      return outputs();
    std::vector<std::pair<std::string, SourcePos>> names{{first, start}};
    while (accept(',')) {
      skip_space();
      SourcePos p = here();
      names.push_back({identifier("a value name"), p});
    }
    expect('=', "after the names being bound");
    for (const auto &[name, p] : names)
      if (values_.count(name))
        error_at(p, "'" + name + "' is already defined");
    const auto outs = call_or_value(static_cast<int>(names.size()));
    if (outs.size() != names.size())
      error_at(start, std::to_string(names.size()) + " names bound to " +
                          std::to_string(outs.size()) + " values");
    for (size_t i = 0; i < names.size(); ++i)
      values_[names[i].first] = outs[i];
    // Keep the bound names for printing (comma-joined for several outputs).
    if (!outs.empty() && !g_.node(outs[0].node).is_variable()) {
      std::string joined;
      for (const auto &[name, p] : names)
        joined += (joined.empty() ? "" : ",") + name;
      g_.set_name(outs[0].node, joined);
    }
  }

  void variable(bool is_weight, const SourcePos &start) {
    skip_space();
    const SourcePos p = here();
    std::string name = identifier("a variable name");
    if (values_.count(name))
      error_at(p, "'" + name + "' is already defined");
    std::optional<Shape> shape;
    if (accept(':'))
      shape = parse_shape();
    try {
      values_[name] =
          is_weight ? g_.weight(name, shape) : g_.input(name, shape);
    } catch (const Error &e) {
      error_at(start, e.what());
    }
  }

  Shape parse_shape() {
    ++depth_;
    expect('[', "to start a shape like [2,4]");
    Shape s;
    if (!accept(']')) {
      do
        s.dims.push_back(integer("a dimension"));
      while (accept(','));
      expect(']', "to close the shape");
    }
    --depth_;
    return s;
  }

  void outputs() {
    do {
      skip_space();
      const SourcePos p = here();
      g_.mark_output(lookup(identifier("an output value name"), p));
    } while (accept(','));
  }

  ValueRef lookup(const std::string &name, const SourcePos &p) const {
    auto it = values_.find(name);
    if (it == values_.end())
      error_at(p, "undefined value '" + name + "'");
    return it->second;
  }

  /// expr := NAME | OP ['[' attrs ']'] '(' [expr {',' expr}] ')'.
  /// `want` is the number of values the caller binds (1 when nested).
  std::vector<ValueRef> call_or_value(int want) {
    skip_space();
    const SourcePos p = here();
    std::string name = identifier("a value or an operator call");
    skip_space();
    if (peek() != '(' && peek() != '[')
      return {lookup(name, p)};
    auto kind = op_from_name(name);
    if (!kind || op_info(*kind).traits.variable)
      error_at(p, "unknown operator '" + name + "'");
    const OpInfo &info = op_info(*kind);
    Attrs attrs = Attrs::defaults(info.attrs);
    if (accept('['))
      parse_attrs(info, attrs);
    ++depth_;
    expect('(', "to start the operands of " + std::string(info.name));
    std::vector<ValueRef> args;
    skip_space();
    if (!accept(')')) {
      do {
        auto v = call_or_value(1);
        args.push_back(v[0]);
      } while (accept(','));
      expect(')', "after the operands of " + std::string(info.name));
    }
    --depth_;
    const int outs = op_num_outputs(*kind, attrs);
    if (outs != want)
      error_at(p, std::string(info.name) + " has " + std::to_string(outs) +
                      " outputs; bind them with 'a, b = " +
                      std::string(info.name) + "(...)'");
    try {
      return g_.add(*kind, std::move(attrs), std::move(args));
    } catch (const Error &e) {
      error_at(p, e.what());
    }
  }

  void parse_attrs(const OpInfo &info, Attrs &attrs) {
    ++depth_;
    while (!accept(']')) {
      skip_space();
      if (at_end())
        error("expected ']' to close the attributes of " +
              std::string(info.name));
      const SourcePos p = here();
      std::string key = identifier("an attribute name");
      int idx = find_attr(info.attrs, key);
      if (idx < 0)
        error_at(p,
                 std::string(info.name) + ": unknown attribute '" + key + "'");
      expect('=', "after attribute " + key);
      skip_space();
      const SourcePos vp = here();
      std::string raw;
      while (!at_end() && !std::isspace(static_cast<unsigned char>(peek())) &&
             peek() != ']' && peek() != '#')
        raw += next();
      try {
        attrs.set(idx, parse_attr(info.name, info.attrs[idx], raw));
      } catch (const Error &e) {
        error_at(vp, e.what());
      }
    }
    --depth_;
  }

private:
  std::string_view text_;
  std::string_view file_;
  size_t pos_ = 0;
  int line_ = 1, col_ = 1;
  int depth_ = 0;
  Graph g_;
  std::map<std::string, ValueRef> values_;
};

} // namespace

Graph parse_graph(std::string_view text, std::string_view file) {
  return Parser(text, file).run();
}

Graph read_graph_file(const std::string &path) {
  return parse_graph(read_file_bytes(path), path);
}

} // namespace quarry
