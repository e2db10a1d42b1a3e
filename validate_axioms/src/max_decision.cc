//===- max_decision.cc - Z3 decides elements with max terms ---------------===//
#include "quarry/validate_axioms/max_decision.h"

#include "quarry/verify/watchdog.h"

#include <z3++.h>

#include <map>

namespace quarry::validate_axioms {

namespace {

class Translator {
public:
  Translator(z3::context &ctx, const SymbolTable &symbols)
      : ctx_(ctx), symbols_(symbols) {}

  z3::expr poly(const Polynomial &p) {
    z3::expr sum = ctx_.real_val(0);
    for (const Term &t : p.terms()) {
      z3::expr term = ctx_.real_val(std::to_string(t.coeff.num()).c_str()) /
                      ctx_.real_val(std::to_string(t.coeff.den()).c_str());
      for (uint32_t s : symbols_of(t.monomial))
        term = term * symbol(s);
      sum = sum + term;
    }
    return sum;
  }

private:
  z3::expr symbol(uint32_t s) {
    auto it = cache_.find(s);
    if (it != cache_.end())
      return it->second;
    const SymbolInfo &info = symbols_.info(s);
    z3::expr e = ctx_.real_val(0);
    switch (info.kind) {
    case SymbolInfo::Kind::Element:
    case SymbolInfo::Kind::Constant:
      e = ctx_.real_const(("s" + std::to_string(s)).c_str());
      break;
    case SymbolInfo::Kind::Max: {
      e = poly(info.args[0]);
      for (size_t i = 1; i < info.args.size(); ++i) {
        z3::expr x = poly(info.args[i]);
        e = z3::ite(x > e, x, e);
      }
      break;
    }
    case SymbolInfo::Kind::Apply: {
      z3::expr x = poly(info.args[0]);
      if (info.fn == UnaryFn::Relu) {
        e = z3::ite(x > 0, x, ctx_.real_val(0));
      } else {
        const std::string name = "fn" + std::to_string(int(info.fn));
        e = ctx_.function(name.c_str(), ctx_.real_sort(), ctx_.real_sort())(x);
      }
      break;
    }
    }
    cache_.emplace(s, e);
    return e;
  }

  z3::context &ctx_;
  const SymbolTable &symbols_;
  std::map<uint32_t, z3::expr> cache_;
};

} // namespace

Decision decide_equal(const SymbolTable &symbols, const Polynomial &a,
                      const Polynomial &b, double timeout_s) {
  z3::context ctx;
  Translator tr(ctx, symbols);
  z3::solver solver(ctx);
  solver.add(tr.poly(a) != tr.poly(b));
  switch (verify::check_within(solver, z3::expr_vector(ctx),
                               verify::guard_seconds(timeout_s),
                               verify::resources_for(timeout_s))) {
  case z3::unsat:
    return Decision::Equal;
  case z3::sat:
    return Decision::Different;
  default:
    return Decision::Unknown;
  }
}

} // namespace quarry::validate_axioms
