//===- axioms.cc - The axiom language ------------------------------------===//
//
// Parse an axiom file (includes resolve inside the scratch directory) and
// print every axiom's sides and every dims equation's terms, which walks
// every term.
//
//===----------------------------------------------------------------------===//
#include "fuzz_input.h"
#include "quarry/verify/axiom_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace quarry;
  const std::string file = (fuzz::scratch_dir() / "fuzz.axioms").string();
  try {
    const verify::AxiomFile f =
        verify::parse_axioms(fuzz::as_text(data, size), file);
    for (const verify::Axiom &a : f.axioms) {
      (void)verify::print_term(f, a.lhs);
      (void)verify::print_term(f, a.rhs);
    }
    for (const verify::DimFact &d : f.dim_facts)
      for (const verify::DimEquation &e : d.equations)
        (void)verify::print_term(f, e.result.tensor);
  } catch (const Error &) {
  }
  return 0;
}
