//===- text_graph.cc - The text form of graphs ----------------------------===//
//
// Parse; an accepted graph prints, and its print parses to the same graph
// (same canonical hash) and prints the same again.
//
//===----------------------------------------------------------------------===//
#include "fuzz_input.h"
#include "quarry/core/text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace quarry;
  const auto g = fuzz::accepted(
      [&] { return parse_graph(fuzz::as_text(data, size), "fuzz.qg"); });
  if (!g)
    return 0;
  const std::string printed = print_graph(*g);
  const Graph again = fuzz::must_accept(
      [&] { return parse_graph(printed, "printed.qg"); }, "the printed graph");
  fuzz::require(again.hash() == g->hash(), "parse(print(g)) has g's hash");
  fuzz::require(print_graph(again) == printed, "print is stable");
  return 0;
}
