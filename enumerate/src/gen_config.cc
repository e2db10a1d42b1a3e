//===- gen_config.cc - Parsing generator configs --------------------------===//
#include "quarry/enumerate/gen_config.h"

#include "quarry/core/error.h"
#include "quarry/core/file_io.h"

#include <charconv>
#include <map>

namespace quarry {

namespace {

/// What one config may declare: every choice is enumerated with every
/// other, so the generator's work grows as a power of it.
constexpr size_t kMaxOperatorChoices = 250;

struct Token {
  std::string_view text;
  int column = 0;
};

std::vector<Token> tokenize(std::string_view line) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < line.size()) {
    if (line[i] == '#')
      break;
    if (line[i] == ' ' || line[i] == '\t' || line[i] == '\r') {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t' &&
           line[j] != '\r' && line[j] != '#')
      ++j;
    out.push_back({line.substr(i, j - i), static_cast<int>(i) + 1});
    i = j;
  }
  return out;
}

std::vector<std::string_view> split_on(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (;;) {
    size_t p = s.find(sep, start);
    parts.push_back(s.substr(start, p - start));
    if (p == std::string_view::npos)
      return parts;
    start = p + 1;
  }
}

bool parse_int(std::string_view s, int64_t &v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size();
}

class Parser {
public:
  Parser(std::string_view text, std::string_view file) : text_(text) {
    cfg_.file = std::string(file);
    cfg_.text = std::string(text);
  }

  GenConfig run() {
    int line_no = 0;
    for (std::string_view line : split_on(text_, '\n')) {
      line_ = ++line_no;
      const std::vector<Token> toks = tokenize(line);
      if (toks.empty())
        continue;
      if (toks[0].text == "input" || toks[0].text == "weight")
        variable_line(toks);
      else if (toks[0].text == "op")
        op_line(toks);
      else
        fail(toks[0], "expected 'input', 'weight' or 'op', got '" +
                          std::string(toks[0].text) + "'");
    }
    if (cfg_.variables.empty())
      throw Error(SourcePos{cfg_.file, 0, 0}, "no variables declared");
    if (cfg_.ops.empty())
      throw Error(SourcePos{cfg_.file, 0, 0}, "no operators declared");
    return std::move(cfg_);
  }

private:
  [[noreturn]] void fail(const Token &t, const std::string &msg) const {
    throw Error(SourcePos{cfg_.file, line_, t.column}, msg);
  }

  // input NAME SHAPE [count=N]
  void variable_line(const std::vector<Token> &toks) {
    if (toks.size() < 3 || toks.size() > 4)
      fail(toks[0],
           "expected '" + std::string(toks[0].text) + " NAME SHAPE [count=N]'");
    const std::string name(toks[1].text);
    for (char c : name)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
        fail(toks[1], "variable names are letters, digits and '_'");
    if (!std::isalpha(static_cast<unsigned char>(name[0])))
      fail(toks[1], "variable names start with a letter");
    Shape shape = parse_shape(toks[2]);
    int64_t count = 1;
    if (toks.size() == 4) {
      std::string_view c = toks[3].text;
      if (c.substr(0, 6) != "count=" || !parse_int(c.substr(6), count) ||
          count < 1 || count > 16)
        fail(toks[3], "expected count=N with N from 1 to 16");
    }
    const int group = static_cast<int>(cfg_.groups.size());
    for (const std::string &g : cfg_.groups)
      if (g == name)
        fail(toks[1], "variable group '" + name + "' declared twice");
    cfg_.groups.push_back(name);
    for (int64_t i = 0; i < count; ++i) {
      GenVariable v;
      v.name = count == 1 ? name : name + std::to_string(i + 1);
      v.kind = toks[0].text == "input" ? OpKind::Input : OpKind::Weight;
      v.shape = shape;
      v.group = group;
      v.index_in_group = static_cast<int>(i);
      for (const GenVariable &o : cfg_.variables)
        if (o.name == v.name)
          fail(toks[1], "variable '" + v.name + "' declared twice");
      cfg_.variables.push_back(std::move(v));
    }
    if (cfg_.variables.size() > 48)
      fail(toks[1], "at most 48 variables");
  }

  // "scalar" or "2x4x5x5"
  Shape parse_shape(const Token &t) const {
    if (t.text == "scalar")
      return Shape{};
    std::vector<int64_t> dims;
    for (std::string_view d : split_on(t.text, 'x')) {
      int64_t v = 0;
      if (!parse_int(d, v) || v < 1 || v > 4096)
        fail(t, "expected a shape like 2x4x5x5 or 'scalar', got '" +
                    std::string(t.text) + "'");
      dims.push_back(v);
    }
    if (dims.size() > 6)
      fail(t, "shapes have at most 6 dimensions");
    return Shape(std::move(dims));
  }

  // op NAME [attr=v1|v2...] [order=any|distinct|increasing]
  //         [first=any|not-weight] [from=any|variables] [inputs=N]
  //         [kernels=3x3,1x3,...]
  void op_line(const std::vector<Token> &toks) {
    if (toks.size() < 2)
      fail(toks[0], "expected 'op NAME [key=value ...]'");
    const auto kind = op_from_name(toks[1].text);
    if (!kind)
      fail(toks[1], "unknown operator '" + std::string(toks[1].text) + "'");
    const OpInfo &info = op_info(*kind);
    if (info.traits.variable)
      fail(toks[1], "variables are declared with 'input' or 'weight'");
    GenOp base;
    base.kind = *kind;
    base.attrs = make_attrs(*kind);
    base.arity = info.min_inputs;
    bool arity_given = false;
    // Attribute alternatives, expanded into one GenOp each at the end.
    std::vector<std::pair<size_t, std::vector<AttrValue>>> choices;
    for (size_t i = 2; i < toks.size(); ++i) {
      const Token &t = toks[i];
      const size_t eq = t.text.find('=');
      if (eq == std::string_view::npos || eq == 0 || eq + 1 == t.text.size())
        fail(t, "expected key=value, got '" + std::string(t.text) + "'");
      const std::string_view key = t.text.substr(0, eq);
      const std::string_view value = t.text.substr(eq + 1);
      if (key == "order") {
        if (value == "any")
          base.order = OperandOrder::Any;
        else if (value == "distinct")
          base.order = OperandOrder::Distinct;
        else if (value == "increasing")
          base.order = OperandOrder::Increasing;
        else
          fail(t, "order is any, distinct or increasing");
      } else if (key == "first") {
        if (value != "any" && value != "not-weight")
          fail(t, "first is any or not-weight");
        base.first_not_weight = value == "not-weight";
      } else if (key == "from") {
        if (value != "any" && value != "variables")
          fail(t, "from is any or variables");
        base.variables_only = value == "variables";
      } else if (key == "kernels") {
        for (std::string_view k : split_on(value, ',')) {
          const auto hw = split_on(k, 'x');
          int64_t kh = 0, kw = 0;
          if (hw.size() != 2 || !parse_int(hw[0], kh) ||
              !parse_int(hw[1], kw) || kh < 1 || kw < 1)
            fail(t, "kernels is a list like 3x3,1x3,3x1");
          base.kernels.emplace_back(kh, kw);
        }
        if (info.min_inputs < 2)
          fail(t, "kernels applies to operators with a kernel operand");
      } else if (key == "inputs") {
        int64_t n = 0;
        if (!parse_int(value, n) || n < info.min_inputs ||
            (info.max_inputs != ops::kVariadic && n > info.max_inputs) || n > 3)
          fail(t, "inputs must be an operand count this operator takes "
                  "(at most 3)");
        base.arity = static_cast<int>(n);
        arity_given = true;
      } else {
        const int idx = find_attr(info.attrs, key);
        if (idx < 0)
          fail(t, std::string(info.name) + " has no attribute '" +
                      std::string(key) + "'");
        std::vector<AttrValue> alts;
        for (std::string_view alt : split_on(value, '|')) {
          try {
            alts.push_back(parse_attr(info.name, info.attrs[idx], alt));
          } catch (const Error &e) {
            fail(t, e.what());
          }
        }
        choices.emplace_back(static_cast<size_t>(idx), std::move(alts));
      }
    }
    if (info.max_inputs != info.min_inputs && !arity_given)
      base.arity = std::max(info.min_inputs, 2);
    if (base.arity > 3)
      fail(toks[1], "operators with more than 3 operands are not enumerated");
    // Alternatives multiply: the limit is checked before they are expanded.
    size_t count = 1;
    for (const auto &choice : choices) {
      count *= choice.second.size();
      if (cfg_.ops.size() + count > kMaxOperatorChoices)
        fail(toks[0], "at most " + std::to_string(kMaxOperatorChoices) +
                          " operator choices");
    }
    std::vector<GenOp> expanded{base};
    for (const auto &[idx, alts] : choices) {
      std::vector<GenOp> next;
      for (const GenOp &g : expanded)
        for (const AttrValue &v : alts) {
          GenOp o = g;
          o.attrs.set(idx, v);
          next.push_back(std::move(o));
        }
      expanded = std::move(next);
    }
    for (GenOp &o : expanded) {
      o.label = std::string(info.name);
      std::string attrs_text;
      for (size_t a = 0; a < info.attrs.size(); ++a) {
        if (!o.attrs.has(a))
          continue;
        attrs_text += (attrs_text.empty() ? "" : " ") +
                      std::string(info.attrs[a].name) + "=" +
                      format_attr(info.attrs[a], o.attrs.value(a));
      }
      if (!attrs_text.empty())
        o.label += "[" + attrs_text + "]";
      for (const GenOp &prev : cfg_.ops)
        if (prev.label == o.label && prev.arity == o.arity)
          fail(toks[1], "operator choice " + o.label + " declared twice");
      cfg_.ops.push_back(std::move(o));
    }
  }

  std::string_view text_;
  GenConfig cfg_;
  int line_ = 0;
};

} // namespace

GenConfig parse_gen_config(std::string_view text, std::string_view file) {
  return Parser(text, file).run();
}

GenConfig read_gen_config(const std::string &path) {
  return parse_gen_config(read_file_bytes(path), path);
}

Node make_node(const GenOp &op) {
  Node n;
  n.kind = op.kind;
  n.attrs = op.attrs;
  n.num_outputs = op_num_outputs(op.kind, op.attrs);
  return n;
}

} // namespace quarry
