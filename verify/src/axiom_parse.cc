//===- axiom_parse.cc - Parsing and checking axiom files ------------------===//
//
// A recursive-descent parser over the tokens of axiom_lexer.h. Every axiom
// is resolved as soon as it is read: operators against their declarations,
// variables against `forall`, parameter literals against the attribute
// schema, so errors point at the offending token.
//
//===----------------------------------------------------------------------===//
#include "axiom_lexer.h"
#include "quarry/core/file_io.h"
#include "quarry/verify/axiom_file.h"
#include "quarry/verify/shape_conditions.h"

#include <set>

namespace quarry::verify {

namespace {

using detail::Token;

bool is_statement_start(const Token &t) {
  return t.kind == Token::Kind::End || t.is("op") || t.is("axiom") ||
         t.is("lemma") || t.is("dims") || t.is("include");
}

std::string dir_of(const std::string &path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

class Parser {
public:
  Parser(AxiomFile &out, std::set<std::string> &seen)
      : out_(out), seen_(seen) {}

  void parse_text(std::string_view text, const std::string &file) {
    toks_ = detail::lex_axioms(text, file);
    at_ = 0;
    file_ = file;
    out_.files.push_back(file);
    while (peek().kind != Token::Kind::End) {
      if (accept("include"))
        include();
      else if (accept("op"))
        op_decl();
      else if (peek().is("axiom") || peek().is("lemma"))
        axiom();
      else if (accept("dims"))
        dim_fact();
      else
        fail("expected 'op', 'axiom', 'lemma', 'dims' or 'include'");
    }
  }

private:
  // --- tokens -------------------------------------------------------------
  const Token &peek(size_t k = 0) const {
    return toks_[std::min(at_ + k, toks_.size() - 1)];
  }
  const Token &next() {
    const Token &t = peek();
    if (at_ < toks_.size() - 1)
      ++at_;
    return t;
  }
  bool accept(std::string_view s) {
    if (!peek().is(s))
      return false;
    next();
    return true;
  }
  [[noreturn]] void fail(const std::string &what) const {
    const Token &t = peek();
    const std::string found =
        t.kind == Token::Kind::End ? "end of file" : "'" + t.text + "'";
    throw Error(t.pos, what + ", found " + found);
  }
  void expect(std::string_view s) {
    if (!accept(s))
      fail("expected '" + std::string(s) + "'");
  }
  std::string ident(const char *what) {
    if (peek().kind != Token::Kind::Ident)
      fail(std::string("expected ") + what);
    return next().text;
  }
  int64_t integer(const char *what) {
    const bool neg = accept("-");
    if (peek().kind != Token::Kind::Int)
      fail(std::string("expected ") + what);
    return neg ? -next().value : next().value;
  }

  // --- statements ---------------------------------------------------------
  void include() {
    if (peek().kind != Token::Kind::String)
      fail("expected a quoted file name after 'include'");
    const Token t = next();
    const std::string path =
        t.text.starts_with("/") ? t.text : dir_of(file_) + t.text;
    if (!seen_.insert(path).second)
      return;
    std::string text;
    try {
      text = read_file_bytes(path);
    } catch (const Error &e) {
      throw Error(t.pos, std::string("cannot include: ") + e.what());
    }
    Parser inner(out_, seen_);
    inner.parse_text(text, path);
  }

  void op_decl() {
    OpDecl d;
    d.pos = peek().pos;
    d.name = ident("an operator name");
    auto kind = op_from_name(d.name);
    if (!kind || op_info(*kind).traits.variable)
      throw Error(d.pos, "'" + d.name + "' is not an operator");
    if (out_.find_op(d.name) >= 0)
      throw Error(d.pos, "operator '" + d.name + "' is declared twice");
    d.kind = *kind;
    const OpInfo &info = op_info(d.kind);
    auto attr = [&](const Token &t) {
      const int idx = find_attr(info.attrs, t.text);
      if (idx < 0)
        throw Error(t.pos, d.name + " has no attribute '" + t.text + "'");
      if (info.attrs[idx].kind == AttrKind::Real)
        throw Error(t.pos, "'" + t.text + "' is a real, not an integer " +
                               "parameter; list it under 'ignore' or leave " +
                               "it out");
      return idx;
    };
    if (accept("["))
      do {
        d.params.push_back(attr(peek()));
        ident("an attribute name");
      } while (accept(","));
    if (!d.params.empty())
      expect("]");
    expect("(");
    if (!peek().is(")"))
      do {
        ident("an operand name");
        ++d.tensor_arity;
      } while (accept(","));
    expect(")");
    if (d.tensor_arity < info.min_inputs ||
        (info.max_inputs != ops::kVariadic && d.tensor_arity > info.max_inputs))
      throw Error(d.pos,
                  d.name + " takes " + std::to_string(info.min_inputs) +
                      (info.max_inputs == info.min_inputs ? "" : " or more") +
                      " operands, declared with " +
                      std::to_string(d.tensor_arity));
    const int outs = op_num_outputs(d.kind, Attrs::defaults(info.attrs));
    d.num_outputs =
        accept("->") ? static_cast<int>(integer("a result count")) : 1;
    if (d.num_outputs != outs)
      throw Error(d.pos, d.name + " has " + std::to_string(outs) +
                             " results, declared with " +
                             std::to_string(d.num_outputs));
    if (accept("ignore"))
      do {
        d.ignored.push_back(attr(peek()));
        ident("an attribute name");
      } while (accept(","));
    out_.ops.push_back(std::move(d));
  }

  void axiom() {
    Axiom a;
    a.is_lemma = next().text == "lemma";
    a.pos = peek().pos;
    a.name = ident("the axiom's name");
    if (out_.find_axiom(a.name))
      throw Error(a.pos, "'" + a.name + "' is defined twice");
    expect(":");
    if (accept("forall"))
      bound_vars(a.vars);
    a.lhs = term();
    expect("=");
    a.rhs = term();
    resolve_tensor(a, a.lhs);
    resolve_tensor(a, a.rhs);
    while (!is_statement_start(peek())) {
      if (accept("where"))
        where(a);
      else if (accept("shapes"))
        shapes(a);
      else if (accept("values"))
        values(a);
      else if (accept("if"))
        domain(a).condition = std::make_unique<DomainExpr>(condition());
      else
        fail("expected 'where', 'shapes', 'values', 'if' or a new statement");
    }
    if (a.domain) {
      check_domain(a);
      a.shape_conditions = derive_shape_conditions(out_, a);
    }
    out_.axioms.push_back(std::move(a));
  }

  /// The variables after `forall`, up to the '.'.
  void bound_vars(std::vector<std::string> &vars) {
    while (!accept(".")) {
      const Token &t = peek();
      const std::string v = ident("a variable or '.'");
      if (std::find(vars.begin(), vars.end(), v) != vars.end())
        throw Error(t.pos, "variable '" + v + "' is bound twice");
      vars.push_back(v);
    }
  }

  void dim_fact() {
    DimFact f;
    f.pos = peek().pos;
    f.name = ident("the statement's name");
    for (const DimFact &other : out_.dim_facts)
      if (other.name == f.name)
        throw Error(f.pos, "dims '" + f.name + "' is defined twice");
    expect(":");
    if (accept("forall"))
      bound_vars(f.vars);
    do
      f.equations.push_back(dim_equation(f));
    while (accept("and"));
    if (!is_statement_start(peek()))
      fail("expected 'and' or a new statement");
    out_.dim_facts.push_back(std::move(f));
  }

  /// dim(op(...), i) = dim(x, j) + ... + constant. Every variable occurs on
  /// the left: the prover instantiates the equation at each application of
  /// the operator.
  DimEquation dim_equation(DimFact &f) {
    DimEquation e;
    e.pos = peek().pos;
    e.result = dim_ref(f, true);
    expect("=");
    do {
      if (peek().kind == Token::Kind::Int || peek().is("-"))
        e.constant += integer("an integer");
      else
        e.sum.push_back(dim_ref(f, false));
    } while (accept("+"));
    if (accept("when")) {
      do {
        std::pair<DimRef, DimRef> atom;
        atom.first = dim_ref(f, false);
        expect("=");
        atom.second = dim_ref(f, false);
        e.when.push_back(std::move(atom));
      } while (peek().is("and") && starts_dim_of_variable(1) && accept("and"));
    }
    std::vector<const DimRef *> right;
    for (const DimRef &d : e.sum)
      right.push_back(&d);
    for (const auto &[a, b] : e.when) {
      right.push_back(&a);
      right.push_back(&b);
    }
    std::set<std::string> left;
    collect_variables(e.result.tensor, left);
    if (!e.result.index_var.empty())
      left.insert(e.result.index_var);
    for (const DimRef *d : right)
      for (const std::string &v : {d->tensor.name, d->index_var})
        if (!v.empty() && !left.count(v))
          throw Error(d->tensor.pos, "'" + v + "' does not occur on the " +
                                         "left; a dims equation gives a " +
                                         "result's dimension from its " +
                                         "operands'");
    return e;
  }

  DimRef dim_ref(DimFact &f, bool result) {
    expect("dim");
    expect("(");
    DimRef r;
    r.tensor = term();
    if (result && r.tensor.kind != Term::Kind::Apply)
      throw Error(r.tensor.pos, "expected an operator application");
    if (!result && r.tensor.kind != Term::Kind::Var)
      throw Error(r.tensor.pos, "expected a tensor variable");
    resolve_tensor(f, r.tensor);
    expect(",");
    if (peek().kind == Token::Kind::Ident) {
      Term index;
      index.pos = peek().pos;
      index.name = ident("a dimension index");
      bind(f, index, VarSort::Index);
      r.index_var = index.name;
    } else {
      r.index = integer("a dimension index");
    }
    expect(")");
    return r;
  }

  /// Whether the tokens from peek(k) read "dim(NAME," (a dimension of a
  /// variable, as in `when`, rather than of an application).
  bool starts_dim_of_variable(size_t k) const {
    return peek(k).is("dim") && peek(k + 1).is("(") &&
           peek(k + 2).kind == Token::Kind::Ident && peek(k + 3).is(",");
  }

  // --- terms --------------------------------------------------------------
  Term term() {
    Term t;
    t.pos = peek().pos;
    if (peek().kind == Token::Kind::Int || peek().is("-")) {
      t.kind = Term::Kind::IntLit;
      t.value = integer("an integer");
    } else if (accept("[")) {
      t.kind = Term::Kind::ListLit;
      do
        t.list.push_back(integer("an integer"));
      while (accept(","));
      expect("]");
    } else {
      t.name = ident("a term");
      if (!accept("(")) {
        t.kind = Term::Kind::Var;
        return t;
      }
      t.kind = Term::Kind::Apply;
      if (const size_t dot = t.name.find('.'); dot != std::string::npos) {
        t.output = std::stoi(t.name.substr(dot + 1));
        t.name.resize(dot);
      }
      if (!peek().is(")"))
        do
          t.args.push_back(term());
        while (accept(","));
      expect(")");
    }
    return t;
  }

  /// Binds a variable of an axiom or a dims statement (`B`) to its sort.
  template <class B> void bind(B &a, const Term &t, VarSort sort) {
    if (std::find(a.vars.begin(), a.vars.end(), t.name) == a.vars.end())
      throw Error(t.pos, "'" + t.name + "' is not bound by forall");
    auto [it, fresh] = a.sorts.emplace(t.name, sort);
    if (!fresh && it->second != sort)
      throw Error(t.pos, "'" + t.name + "' is used both as " +
                             sort_name(std::min(it->second, sort)) +
                             " and as " +
                             sort_name(std::max(it->second, sort)));
  }

  static std::string sort_name(VarSort s) {
    switch (s) {
    case VarSort::Tensor:
      return "a tensor";
    case VarSort::Int:
      return "an integer parameter";
    case VarSort::Index:
      return "a dimension index";
    }
    return "?";
  }

  template <class B> void resolve_tensor(B &a, Term &t) {
    if (t.kind == Term::Kind::Var)
      return bind(a, t, VarSort::Tensor);
    if (t.kind != Term::Kind::Apply)
      throw Error(t.pos, "expected a tensor, not a number");
    t.decl = out_.find_op(t.name);
    if (t.decl < 0)
      throw Error(t.pos, "undeclared operator '" + t.name + "'");
    const OpDecl &d = out_.ops[t.decl];
    if (static_cast<int>(t.args.size()) != d.arity())
      throw Error(t.pos, d.name + " takes " + std::to_string(d.params.size()) +
                             " parameters and " +
                             std::to_string(d.tensor_arity) + " tensors, got " +
                             std::to_string(t.args.size()) + " arguments");
    if (t.output >= d.num_outputs)
      throw Error(t.pos, d.name + " has no result " + std::to_string(t.output));
    const OpInfo &info = op_info(d.kind);
    for (size_t i = 0; i < t.args.size(); ++i) {
      Term &arg = t.args[i];
      if (i >= d.params.size()) {
        resolve_tensor(a, arg);
        continue;
      }
      const AttrSpec &spec = info.attrs[d.params[i]];
      resolve_param(a, arg, d, spec);
    }
  }

  template <class B>
  void resolve_param(B &a, Term &arg, const OpDecl &d, const AttrSpec &spec) {
    const std::string where =
        "parameter '" + std::string(spec.name) + "' of " + d.name;
    const bool is_list = spec.kind == AttrKind::IntList;
    switch (arg.kind) {
    case Term::Kind::Var:
      if (std::find(a.vars.begin(), a.vars.end(), arg.name) != a.vars.end()) {
        bind(a, arg, VarSort::Int);
        param_specs_.emplace(arg.name, &spec);
        return;
      }
      for (size_t k = 0; k < spec.enum_names.size(); ++k)
        if (spec.enum_names[k] == arg.name) {
          arg.kind = Term::Kind::Name;
          arg.value = static_cast<int64_t>(k);
          return;
        }
      throw Error(arg.pos, "'" + arg.name + "' is neither a bound variable " +
                               "nor a value of " + where);
    case Term::Kind::IntLit:
      if (is_list)
        throw Error(arg.pos, "expected a list for " + where);
      return;
    case Term::Kind::ListLit:
      if (!is_list)
        throw Error(arg.pos, "expected an integer for " + where);
      if (spec.list_length >= 0 &&
          static_cast<int>(arg.list.size()) != spec.list_length)
        throw Error(arg.pos, where + " takes " +
                                 std::to_string(spec.list_length) + " values");
      return;
    default:
      throw Error(arg.pos, "expected a value for " + where);
    }
  }

  // --- clauses ------------------------------------------------------------
  void where(Axiom &a) {
    do {
      DimAtom atom;
      auto side = [&](std::string &var, int &dim) {
        expect("dim");
        expect("(");
        const Token &t = peek();
        var = ident("a tensor variable");
        auto it = a.sorts.find(var);
        if (it == a.sorts.end() || it->second != VarSort::Tensor)
          throw Error(t.pos,
                      "'" + var + "' is not a tensor variable of " + a.name);
        expect(",");
        dim = static_cast<int>(integer("a dimension index"));
        expect(")");
      };
      side(atom.var, atom.dim);
      expect("=");
      side(atom.other_var, atom.other_dim);
      a.preconditions.push_back(atom);
    } while (accept("and"));
  }

  /// Whether the axiom applies operator `op`.
  static bool applies(const Axiom &a, std::string_view op) {
    std::vector<Term> uses;
    collect_applications(a.lhs, op, uses);
    collect_applications(a.rhs, op, uses);
    return !uses.empty();
  }

  AxiomDomain &domain(Axiom &a) {
    if (!a.domain)
      a.domain = std::make_shared<AxiomDomain>();
    return *a.domain;
  }

  void shapes(Axiom &a) {
    do {
      const Token &t = peek();
      const std::string key = ident("a tensor variable or constant");
      const bool ok =
          (a.sorts.count(key) && a.sorts.at(key) == VarSort::Tensor) ||
          (!a.sorts.count(key) && applies(a, key));
      if (!ok)
        throw Error(t.pos, "'" + key + "' is not a tensor variable or " +
                               "operator of " + a.name);
      if (a.domain && a.domain->shapes.count(key))
        throw Error(t.pos, a.name + ": '" + key + "' has two shapes");
      expect(":");
      expect("[");
      std::vector<DomainExpr> dims;
      if (!peek().is("]"))
        do
          dims.push_back(sum());
        while (accept(","));
      expect("]");
      domain(a).shapes[key] = std::move(dims);
    } while (accept(","));
  }

  DomainValue value_for(const std::string &var) {
    if (peek().is("[")) {
      next();
      DomainValue v;
      do
        v.push_back(integer("an integer"));
      while (accept(","));
      expect("]");
      return v;
    }
    if (peek().kind == Token::Kind::Ident) {
      const Token &t = next();
      auto it = param_specs_.find(var);
      if (it != param_specs_.end())
        for (size_t k = 0; k < it->second->enum_names.size(); ++k)
          if (it->second->enum_names[k] == t.text)
            return {static_cast<int64_t>(k)};
      throw Error(t.pos, "'" + t.text + "' is not a value of '" + var + "'");
    }
    return {integer("a value")};
  }

  void values(Axiom &a) {
    AxiomDomain &dom = domain(a);
    do {
      std::vector<std::string> vars;
      while (!accept("in"))
        vars.push_back(ident("a variable or 'in'"));
      if (vars.empty())
        fail("expected a variable before 'in'");
      std::vector<DomainValue> set;
      if (accept("{")) {
        do
          set.push_back(value_for(vars[0]));
        while (accept(","));
        expect("}");
      } else {
        const int64_t lo = integer("'{' or a range lo..hi");
        expect("..");
        const int64_t hi = integer("the end of the range");
        if (hi < lo || hi - lo > 4096)
          fail("expected a range of at most 4096 values");
        for (int64_t v = lo; v <= hi; ++v)
          set.push_back({v});
      }
      for (const std::string &v : vars) {
        if (a.sorts.count(v) && a.sorts.at(v) == VarSort::Tensor)
          fail("'" + v + "' is a tensor; give its shape under 'shapes'");
        if (!dom.values.count(v))
          dom.value_order.push_back(v);
        dom.values[v] = set;
      }
    } while (accept(","));
  }

  // Conditions: or > and > not > comparison > + - > * / % > atom.
  DomainExpr binary(std::string op, DomainExpr l, DomainExpr r, SourcePos p) {
    DomainExpr e;
    e.kind = DomainExpr::Kind::Binary;
    e.op = std::move(op);
    e.pos = std::move(p);
    e.args.push_back(std::move(l));
    e.args.push_back(std::move(r));
    return e;
  }
  DomainExpr condition() {
    DomainExpr e = conjunction();
    while (peek().is("or")) {
      SourcePos p = next().pos;
      e = binary("or", std::move(e), conjunction(), p);
    }
    return e;
  }
  DomainExpr conjunction() {
    DomainExpr e = comparison();
    while (peek().is("and")) {
      SourcePos p = next().pos;
      e = binary("and", std::move(e), comparison(), p);
    }
    return e;
  }
  DomainExpr comparison() {
    if (peek().is("not")) {
      DomainExpr e;
      e.kind = DomainExpr::Kind::Not;
      e.pos = next().pos;
      e.args.push_back(comparison());
      return e;
    }
    // "(" opens either a parenthesised condition or arithmetic, as in
    // "(k - kh) % 2 = 0": try the comparison first, then the condition.
    const size_t start = at_;
    if (peek().is("(")) {
      try {
        return arithmetic_comparison();
      } catch (const Error &) {
        at_ = start;
      }
      expect("(");
      DomainExpr e = condition();
      expect(")");
      return e;
    }
    return arithmetic_comparison();
  }
  DomainExpr arithmetic_comparison() {
    DomainExpr l = sum();
    for (std::string_view op : {"=", "!=", "<=", ">=", "<", ">"})
      if (peek().is(op)) {
        SourcePos p = next().pos;
        return binary(std::string(op), std::move(l), sum(), p);
      }
    fail("expected a comparison (=, !=, <, <=, >, >=)");
  }
  DomainExpr sum() {
    DomainExpr e = product();
    while (peek().is("+") || peek().is("-")) {
      const Token &t = next();
      e = binary(t.text, std::move(e), product(), t.pos);
    }
    return e;
  }
  DomainExpr product() {
    DomainExpr e = atom();
    while (peek().is("*") || peek().is("/") || peek().is("%")) {
      const Token &t = next();
      e = binary(t.text, std::move(e), atom(), t.pos);
    }
    return e;
  }
  DomainExpr atom() {
    DomainExpr e;
    e.pos = peek().pos;
    if (accept("(")) {
      e = sum();
      expect(")");
    } else if (peek().kind == Token::Kind::Int) {
      e.value = next().value;
    } else if (peek().kind == Token::Kind::Ident) {
      e.kind = DomainExpr::Kind::Var;
      e.name = next().text;
    } else {
      fail("expected a number or a variable");
    }
    return e;
  }

  /// Every tensor and constant has a shape, and every name in shapes and
  /// the condition is a variable with values or an enum value of a
  /// parameter.
  void check_domain(Axiom &a) {
    AxiomDomain &dom = *a.domain;
    for (const OpDecl &d : out_.ops)
      if (op_info(d.kind).traits.constant && !dom.shapes.count(d.name) &&
          applies(a, d.name))
        throw Error(a.pos, a.name + ": give the shape of " + d.name +
                               " under 'shapes'");
    for (const auto &[v, sort] : a.sorts) {
      if (sort == VarSort::Tensor && !dom.shapes.count(v))
        throw Error(a.pos, a.name + ": tensor '" + v + "' has no shape");
      if (sort == VarSort::Int && !dom.values.count(v))
        throw Error(a.pos, a.name + ": parameter '" + v + "' has no values");
    }
    for (auto &[key, dims] : dom.shapes)
      for (DomainExpr &d : dims)
        check_names(a, d, false);
    if (dom.condition)
      check_names(a, *dom.condition, true);
  }
  void check_names(const Axiom &a, DomainExpr &e, bool allow_enum) {
    for (DomainExpr &arg : e.args)
      check_names(a, arg, allow_enum);
    if (e.kind != DomainExpr::Kind::Var ||
        a.domain->values.count(e.name.substr(0, e.name.find('.'))))
      return;
    // `p = same`: a value name of some parameter of this axiom.
    if (allow_enum)
      for (const auto &[var, spec] : param_specs_)
        for (size_t k = 0; k < spec->enum_names.size(); ++k)
          if (spec->enum_names[k] == e.name) {
            e.kind = DomainExpr::Kind::Int;
            e.value = static_cast<int64_t>(k);
            return;
          }
    throw Error(e.pos,
                "'" + e.name + "' has no values (add it under " + "'values')");
  }

  AxiomFile &out_;
  std::set<std::string> &seen_;
  std::vector<Token> toks_;
  size_t at_ = 0;
  std::string file_;
  std::multimap<std::string, const AttrSpec *> param_specs_;
};

void append_term(const AxiomFile &f, const Term &t, std::string &s) {
  switch (t.kind) {
  case Term::Kind::Var:
  case Term::Kind::Name:
    s += t.name;
    return;
  case Term::Kind::IntLit:
    s += std::to_string(t.value);
    return;
  case Term::Kind::ListLit:
    s += "[";
    for (size_t i = 0; i < t.list.size(); ++i)
      s += (i ? "," : "") + std::to_string(t.list[i]);
    s += "]";
    return;
  case Term::Kind::Apply:
    s += t.name;
    if (t.decl >= 0 && f.ops[t.decl].num_outputs > 1)
      s += "." + std::to_string(t.output);
    s += "(";
    for (size_t i = 0; i < t.args.size(); ++i) {
      if (i)
        s += ", ";
      append_term(f, t.args[i], s);
    }
    s += ")";
  }
}

} // namespace

int AxiomFile::find_op(std::string_view name) const {
  for (size_t i = 0; i < ops.size(); ++i)
    if (ops[i].name == name)
      return static_cast<int>(i);
  return -1;
}

const OpDecl *AxiomFile::decl_of(OpKind kind) const {
  for (const OpDecl &d : ops)
    if (d.kind == kind)
      return &d;
  return nullptr;
}

const Axiom *AxiomFile::find_axiom(std::string_view name) const {
  for (const Axiom &a : axioms)
    if (a.name == name)
      return &a;
  return nullptr;
}

AxiomFile parse_axioms(std::string_view text, const std::string &file) {
  AxiomFile out;
  std::set<std::string> seen{file};
  Parser(out, seen).parse_text(text, file);
  return out;
}

AxiomFile read_axiom_file(const std::string &path) {
  return parse_axioms(read_file_bytes(path), path);
}

AxiomFile without_axioms(const AxiomFile &file,
                         const std::vector<std::string> &names) {
  AxiomFile out = file;
  for (const std::string &n : names) {
    auto it = std::find_if(out.axioms.begin(), out.axioms.end(),
                           [&](const Axiom &a) { return a.name == n; });
    if (it == out.axioms.end())
      throw Error("no axiom named '" + n + "'");
    out.axioms.erase(it);
  }
  return out;
}

void collect_applications(const Term &t, std::string_view op,
                          std::vector<Term> &out) {
  if (t.kind != Term::Kind::Apply)
    return;
  if (t.name == op)
    out.push_back(t);
  for (const Term &arg : t.args)
    collect_applications(arg, op, out);
}

void collect_variables(const Term &t, std::set<std::string> &out) {
  if (t.kind == Term::Kind::Var)
    out.insert(t.name);
  for (const Term &arg : t.args)
    collect_variables(arg, out);
}

std::string print_term(const AxiomFile &file, const Term &t) {
  std::string s;
  append_term(file, t, s);
  return s;
}

} // namespace quarry::verify
