//===- gen_config.cc - Generator configurations --------------------------===//
//
// Parse; every accepted operator makes a node.
//
//===----------------------------------------------------------------------===//
#include "quarry/enumerate/gen_config.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace quarry;
  try {
    const GenConfig c = parse_gen_config(fuzz::as_text(data, size), "fuzz.gen");
    for (const GenOp &op : c.ops)
      (void)make_node(op);
  } catch (const Error &) {
  }
  return 0;
}
