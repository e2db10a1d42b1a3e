//===- verify_test_util.h - Shared helpers of the verify tests -*- C++ -*-===//
#pragma once

#include "quarry/core/text.h"
#include "quarry/rulepack/rule_pack.h"
#include "quarry/testing/error_of.h"
#include "quarry/verify/axiom_file.h"

#include <string>

namespace quarry::verify::testing {

using quarry::testing::error_of;

inline const std::string kTasoAxioms =
    std::string(QUARRY_AXIOMS_DIR) + "/taso.axioms";

/// The shared TASO axioms, parsed once.
inline const AxiomFile &taso_axioms() {
  static const AxiomFile file = read_axiom_file(kTasoAxioms);
  return file;
}

} // namespace quarry::verify::testing
