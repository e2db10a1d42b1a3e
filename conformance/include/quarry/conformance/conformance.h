//===- conformance.h - ONNX's backend test cases run through quarry -*- C++
//-*-===//
//
// ONNX ships its operator semantics as test cases: a directory holding
// model.onnx and test_data_set_N/{input,output}_K.pb (Debian:
// libonnx-testdata). A case passes when every data set's outputs, computed
// by importing the model and running it on a quarry backend, match the
// expected ones within ONNX's own tolerance (|got - want| <= atol +
// rtol * |want|); it is unsupported when quarry refuses to import or
// prepare it (the reason names the operator or the form refused), and
// fails when it runs and computes something else (or its run throws).
// A case is a float32 inference case when every graph input and output is
// a float tensor and it uses no training or sequence operator: ONNX's
// integer, bool, string, sequence, quantized and training cases are
// outside quarry's float32 inference graphs, and the summary counts them
// apart. An inference case is wider: its inputs and outputs may also be
// float16, bfloat16 and 8-bit integers (quantized models). A case whose
// expected outputs ONNX Runtime is known not to reproduce (ONNX's own
// issue tracker says why) and that quarry computes otherwise is
// unsupported, the detail saying "disputed".
//
//===----------------------------------------------------------------------===//
#pragma once

#include <map>
#include <string>
#include <vector>

namespace quarry::conformance {

struct Options {
  std::string backend = "reference";
  double rtol = 1e-3, atol = 1e-7; ///< onnx/backend/test's defaults
  int threads = 1;
  /// runtime::BackendOptions::streams (cpu: other than 1 checks the
  /// multi-stream plan on host threads).
  int streams = 1;
};

enum class Outcome { Pass, Fail, Unsupported };
const char *outcome_name(Outcome o);

struct CaseResult {
  std::string name; ///< the case directory's name, e.g. test_abs
  std::string dir;
  Outcome outcome = Outcome::Unsupported;
  /// Fail: which output and element, and by how much. Unsupported: what
  /// quarry refused (the operator, usually).
  std::string detail;
  /// The largest |got - want| / (atol + rtol * |want|) over all outputs
  /// (<= 1 passes); 0 when nothing ran.
  double worst = 0;
  int data_sets = 0;
  /// The ONNX operator types the model uses, sorted, once each.
  std::vector<std::string> operators;
  /// A float32 inference case: every graph input and output a float
  /// tensor, no training or sequence operator.
  bool float32 = false;
  /// An inference case of float32, float16, bfloat16 or 8-bit tensors
  /// (int32 too where ConvInteger or MatMulInteger sums into it), no
  /// training or sequence operator.
  bool inference = false;
  double seconds = 0;
};

/// The case directories under each of `paths` (a path holding model.onnx
/// is a case itself), sorted by path; an error names a path that is
/// neither.
std::vector<std::string> find_cases(const std::vector<std::string> &paths);

/// Runs one case directory; never throws for what the case holds.
CaseResult run_case(const std::string &dir, const Options &opts);

struct Counts {
  int passed = 0, failed = 0, unsupported = 0;
  void add(Outcome o);
};

/// The outcomes of all cases, of the float32 inference ones, and of the
/// inference ones of every element type quarry's models hold.
struct Totals {
  Counts all, float32, inference;
};
Totals totals(const std::vector<CaseResult> &results);

/// Per ONNX operator: the outcomes of the cases that use it.
std::map<std::string, Counts>
by_operator(const std::vector<CaseResult> &results);

/// {"backend", "rtol", "atol", "passed", "failed", "unsupported",
///  "float32": {"passed", "failed", "unsupported"},
///  "inference": {"passed", "failed", "unsupported"},
///  "cases": [{"name", "outcome", "detail", "worst", "data_sets",
///             "operators", "float32", "inference", "seconds"}],
///  "operators": {"Abs": {"passed", "failed", "unsupported"}, ...}}
std::string summary_json(const std::vector<CaseResult> &results,
                         const Options &opts);

} // namespace quarry::conformance
