//===- onnx_model.cc - ONNX models ---------------------------------------===//
//
// Import (operators, folding, ONNX shape inference for kept nodes); an
// imported model exports, unless export refuses it in one quarry::Error,
// and the exported model imports again with as many outputs. Nodes quarry
// keeps as they are go back out unchanged, valid or not (ONNX's inference
// at an old opset may type a node that the export's opset rejects), so the
// second import must succeed only for models without kept nodes. A small
// model that keeps nodes runs on the reference in stages (staged/): its
// kernels and the tail imported again give outputs or one quarry::Error.
//
//===----------------------------------------------------------------------===//
#include "fuzz_input.h"
#include "quarry/models/onnx.h"
#include "quarry/runtime/backends.h"
#include "quarry/runtime/run_inputs.h"
#include "quarry/staged/staged_executable.h"

namespace {

/// Whether every value of `g` is small, so that running it on the
/// reference takes a moment.
bool small(const quarry::Graph &g) {
  int64_t elements = 0;
  for (const quarry::Node &n : g.nodes())
    for (const quarry::TensorType &t : n.types)
      elements += t.shape.numel();
  return elements <= (int64_t{1} << 16);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace quarry;
  const auto m = fuzz::accepted([&] {
    return import_onnx_bytes(fuzz::as_text(data, size), "fuzz.onnx");
  });
  if (!m)
    return 0;
  const auto bytes = fuzz::accepted([&] { return export_onnx_bytes(*m); });
  if (!bytes)
    return 0;
  auto reimport = [&] { return import_onnx_bytes(*bytes, "exported.onnx"); };
  if (!kept_operator_types(*m).empty()) {
    (void)fuzz::accepted(reimport);
    if (small(m->graph)) {
      auto reference = runtime::make_backend("reference");
      (void)fuzz::accepted([&] {
        staged::StagedExecutable exe(*m, m->weights, *reference, "fuzz.onnx");
        exe.set_inputs(runtime::random_run_inputs(m->graph, 1));
        exe.execute();
        return exe.outputs().size();
      });
    }
    return 0;
  }
  const Model again = fuzz::must_accept(reimport, "the exported model");
  fuzz::require(again.graph.outputs().size() == m->graph.outputs().size(),
                "export keeps the outputs");
  return 0;
}
