//===- saved_model.cc - Models saved by quarry (.qg, weights, kept) ------===//
//
// The input holds the three files of a saved model: a flags byte (bit 0:
// the weights file exists, bit 1: the kept-nodes file exists), the text
// graph's length and the weights' length (16 bits each, little-endian),
// then the text graph, the weights (an ONNX GraphProto) and the kept
// nodes (an ONNX ModelProto). They are loaded as `quarry run MODEL` does.
//
//===----------------------------------------------------------------------===//
#include "fuzz_input.h"
#include "quarry/models/model_file.h"

#include <algorithm>

namespace {

/// The next `n` bytes of `in` (fewer at its end), taken off its front.
std::string_view take(std::string_view &in, size_t n) {
  const std::string_view part = in.substr(0, std::min(n, in.size()));
  in.remove_prefix(part.size());
  return part;
}

size_t take_length(std::string_view &in) {
  const std::string_view b = take(in, 2);
  size_t n = 0;
  for (size_t i = 0; i < b.size(); ++i)
    n |= size_t{static_cast<uint8_t>(b[i])} << (8 * i);
  return n;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace quarry;
  std::string_view in = fuzz::as_text(data, size);
  const std::string_view flags = take(in, 1);
  const uint8_t present = flags.empty() ? 0 : static_cast<uint8_t>(flags[0]);
  const size_t qg_size = take_length(in), weights_size = take_length(in);
  const std::string_view qg = take(in, qg_size);
  const std::string_view weights = take(in, weights_size);
  const std::string path = fuzz::scratch_file("model.qg", qg);
  std::filesystem::remove(weights_path(path));
  std::filesystem::remove(kept_path(path));
  if (present & 1)
    fuzz::scratch_file("model.qg.weights.pb", weights);
  if (present & 2)
    fuzz::scratch_file("model.qg.kept.pb", in);
  try {
    (void)load_graph_any(path);
  } catch (const Error &) {
  }
  return 0;
}
