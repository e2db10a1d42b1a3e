//===- tensor_file.cc - Tensors in .npy and TensorProto .pb files --------===//
//
// The first byte picks the format (by the file's extension, as
// read_tensor_file does); an accepted tensor has as many values as its
// shape says.
//
//===----------------------------------------------------------------------===//
#include "quarry/models/tensor_file.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace quarry;
  if (size == 0)
    return 0;
  const std::string path =
      fuzz::scratch_file((data[0] & 1) ? "tensor.npy" : "tensor.pb",
                         fuzz::as_text(data + 1, size - 1));
  try {
    const TensorFile t = read_tensor_file(path);
    fuzz::require(t.value.numel() == t.value.shape.numel(),
                  "values match the shape");
  } catch (const Error &) {
  }
  return 0;
}
