//===- verify_report.cc - A verification report read by --resume ---------===//
//
// Resumes against a fixed pack of two rules and the axioms hash 0, so the
// seeds' entries match and are read in full.
//
//===----------------------------------------------------------------------===//
#include "fuzz_input.h"
#include "quarry/verify/report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace quarry;
  static const std::vector<Rule> rules = {
      parse_rule("relu_twice", "input x\ny = relu(relu(x))\noutput y",
                 "input x\ny = relu(x)\noutput y"),
      parse_rule("add_commutes", "input a\ninput b\ny = ewadd(a, b)\noutput y",
                 "input a\ninput b\ny = ewadd(b, a)\noutput y")};
  const std::string path =
      fuzz::scratch_file("report.json", fuzz::as_text(data, size));
  try {
    (void)verify::resumable_results(path, 0, rules);
  } catch (const Error &) {
  }
  return 0;
}
