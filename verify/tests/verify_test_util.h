//===- verify_test_util.h - Shared helpers of the verify tests -*- C++ -*-===//
#pragma once

#include "quarry/core/text.h"
#include "quarry/rules/rule_pack.h"
#include "quarry/verify/axiom_file.h"

#include <string>

namespace quarry::verify::testing {

inline const std::string kTasoAxioms =
    std::string(QUARRY_AXIOMS_DIR) + "/taso.axioms";

/// The shared TASO axioms, parsed once.
inline const AxiomFile &taso_axioms() {
  static const AxiomFile file = read_axiom_file(kTasoAxioms);
  return file;
}

/// A rule from two text graphs (core/text.h) over pattern variables.
inline Rule text_rule(const std::string &name, const std::string &source,
                      const std::string &target) {
  Rule r;
  r.name = name;
  r.source = parse_graph(source, name + ".source");
  r.target = parse_graph(target, name + ".target");
  check_rule(r);
  return r;
}

/// what() of the quarry::Error `f` throws, or "no error".
template <class F> std::string error_of(F &&f) {
  try {
    f();
  } catch (const Error &e) {
    return e.what();
  }
  return "no error";
}

} // namespace quarry::verify::testing
