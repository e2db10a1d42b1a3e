//===- onnx_model.cc - ONNX models ---------------------------------------===//
//
// Import (operators, folding, ONNX shape inference for kept nodes); an
// imported model exports, unless export refuses it in one quarry::Error,
// and the exported model imports again with as many outputs. Nodes quarry
// keeps as they are go back out unchanged, valid or not (ONNX's inference
// at an old opset may type a node that the export's opset rejects), so the
// second import must succeed only for models without kept nodes.
//
//===----------------------------------------------------------------------===//
#include "fuzz_input.h"
#include "quarry/models/onnx.h"

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
    return 0;
  }
  const Model again = fuzz::must_accept(reimport, "the exported model");
  fuzz::require(again.graph.outputs().size() == m->graph.outputs().size(),
                "export keeps the outputs");
  return 0;
}
